"""The local judge's support-based metrics: faithfulness, context recall, context precision, answer correctness
and the citation verdicts, all on `ragtest_core.support`'s graded support (see `evaluation.local_judge`).

- faithfulness: the support of the answer's statements by the contexts, taken together
  (`ragtest_core.support.joint_support`: the fitted model on their pooled features, times every conflict factor).
  It ranks human groundedness labels better than the mean or the minimum of the statements' own values
  (bench/support_ablation.py); each statement's own support is in the details.
- context_recall: the mean support of the reference's statements by the contexts.
- context_precision: a context is useful when it alone supports a reference statement (>= `USEFUL_SUPPORT`), or
  when the contexts together support a statement and this context holds at least `PART_SHARE` of the statement's
  content weight outside the question's words (an answer that needs two chunks marks both). RAGAS' average
  precision on those verdicts.
- answer_correctness: TP = the answer statements' support by the reference, FP = the rest, FN = the reference
  statements' lack of support by the answer (graded counts), in RAGAS' formula.
- citations: the cited contexts support a statement when its support on their sentences reaches
  `CITATION_SUPPORT` (the same vectors: nothing is embedded again).
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.local_judge import LocalJudge
from evaluation.sample import Sample
from evaluation.scores import (
    answer_correctness_score,
    context_precision_score,
    graded_context_recall_score,
    joint_faithfulness_score,
)
from ragtest_core.schema import MetricResult
from ragtest_core.support import Evidence, Support, joint_support
from ragtest_core.textunits import unit

#: context_precision: a context is useful when it alone supports a reference statement this well ...
USEFUL_SUPPORT = 0.5
#: ... or holds this share of the content weight of a statement that the contexts support together.
PART_SHARE = 0.3
#: Citations: the cited contexts support a statement when its graded support on them reaches this.
CITATION_SUPPORT = 0.5


def statement_details(statements: Sequence[str], found: Sequence[Support]) -> list[dict[str, object]]:
    return [{"statement": s, **sp.details()} for s, sp in zip(statements, found, strict=True)]


def faithfulness(sample: Sample, judge: LocalJudge) -> MetricResult:
    statements = judge.claims(sample.answer or "")
    found = judge.support(statements, judge.evidence(sample.contexts), sample.question)
    together = joint_support(found, judge.settings.support) if found else 1.0
    result = joint_faithfulness_score(together, [s.value for s in found])
    return result.model_copy(update={"details": {"statements": statement_details(statements, found)}})


def context_recall(sample: Sample, judge: LocalJudge) -> MetricResult:
    statements = judge.statements(sample.ground_truth or "")
    if not statements:
        return MetricResult.failed("the reference has no statements to attribute")
    found = judge.support(statements, judge.evidence(sample.contexts), sample.question)
    result = graded_context_recall_score([s.value for s in found])
    return result.model_copy(update={"details": {"statements": statement_details(statements, found)}})


def _holds_part(statement: str, evidence: Evidence, question_keys: frozenset[str], key_weight: float) -> bool:
    """Whether the evidence holds `PART_SHARE` of the statement's content weight outside the question's words."""
    own: dict[str, float] = {}
    for word in unit(statement).words:
        if word.content and word.key not in question_keys:
            own[word.key] = max(own.get(word.key, 0.0), key_weight if word.kind else 1.0)
    if not own:
        return False
    held = frozenset(k for u in evidence.units for k in u.keys)
    return sum(w for k, w in own.items() if k in held) / sum(own.values()) >= PART_SHARE


def precision_verdicts(reference: str, sample: Sample, judge: LocalJudge) -> list[int] | None:
    """Per retrieved context, in rank order: 1 when it is useful for the reference (see the module docstring);
    None when the reference has no statements."""
    statements = judge.statements(reference)
    if not statements:
        return None
    evidence = judge.evidence(sample.contexts)
    question = sample.question
    together = judge.support(statements, evidence, question)
    question_keys = unit(question).keys if question else frozenset()
    key_weight = judge.settings.support.key_weight
    verdicts = []
    for index in range(len(sample.contexts)):
        sub = evidence.subset([index])
        alone = judge.support(statements, sub, question) if sub.sentences else []
        useful = any(s.value >= USEFUL_SUPPORT for s in alone) or any(
            both.value >= USEFUL_SUPPORT and _holds_part(statement, sub, question_keys, key_weight)
            for statement, both in zip(statements, together, strict=True)
        )
        verdicts.append(int(useful))
    return verdicts


def context_precision(reference: str, sample: Sample, judge: LocalJudge) -> MetricResult:
    verdicts = precision_verdicts(reference, sample, judge)
    if verdicts is None:
        return MetricResult.failed("the reference has no content words to compare")
    return context_precision_score(verdicts)


def answer_correctness(sample: Sample, judge: LocalJudge, weights: tuple[float, float]) -> MetricResult:
    answer, reference = sample.answer or "", sample.ground_truth or ""
    ours, theirs = judge.claims(answer), judge.statements(reference)
    by_reference = judge.support(ours, judge.evidence([reference]), sample.question)
    by_answer = judge.support(theirs, judge.evidence([answer]), sample.question)
    tp = sum(s.value for s in by_reference)
    fn = sum(1.0 - s.value for s in by_answer)
    similarity = float(judge.cosine([answer], [reference])[0, 0])
    result = answer_correctness_score(tp, len(ours) - tp, fn, similarity, weights)
    details = {
        **result.details,
        "answer_statements": statement_details(ours, by_reference),
        "reference_statements": statement_details(theirs, by_answer),
    }
    return result.model_copy(update={"details": details})


def citation_supported(statement: str, cited: Sequence[int], sample: Sample, judge: LocalJudge) -> bool:
    """Do the cited contexts (1-based ranks) support the statement? Graded support >= `CITATION_SUPPORT`."""
    keep = [c - 1 for c in cited if 1 <= c <= len(sample.contexts)]
    if not keep:
        return False
    sub = judge.evidence(sample.contexts).subset(keep)
    if not sub.sentences:
        return False
    (found,) = judge.support([statement], sub, sample.question)
    return found.value >= CITATION_SUPPORT
