"""The local judge's support-based metrics: faithfulness, context recall, context precision, answer correctness
and the citation verdicts, all on `ragtest_core.support`'s graded support under the judge's own support model
(`LocalJudgeSettings.support`; see `evaluation.local_judge`).

- faithfulness: the support of the answer's statements by the contexts, taken together
  (`ragtest_core.support.joint_support`: the fitted model on their pooled features, times every conflict factor).
  Each statement's own support is in the details.
- context_recall: the mean support of the reference's statements by the contexts; or, under a whole-text base
  (`LocalJudgeSettings.context_recall`, the ablation's choice), the similarity of the reference and the contexts:
  its best MiniLM cosine with one context ("cosine", clipped at 0; each context is embedded alone, since the model
  reads at most 256 tokens of a text), the share of its content tokens the contexts hold ("overlap"), or the mean of
  the two ("combined").
- context_precision: a context is useful when it alone supports a reference statement (>= `useful_support`, a field
  of `ragtest_core.judge_params.JudgeParams`, like the cut-offs below), or when the contexts together support a
  statement that the other contexts without it do not and it holds at least `own_share` of the statement's content
  words that no other context holds (it is needed: an answer that needs two chunks marks both, and a chunk that
  merely adds a few common words marks neither). RAGAS' average precision on those verdicts. Under a whole-text base
  (`LocalJudgeSettings.context_precision`), each context's verdict is graded: its similarity to the reference (as
  for context recall), in RAGAS' average precision with graded verdicts.
- answer_correctness: TP = the answer statements' support by the reference, FP = the rest, FN = the reference
  statements' lack of support by the answer (graded counts), in RAGAS' formula.
- citations: the cited contexts support a statement when its support on their sentences reaches
  `citation_support` (the same evidence: nothing is split or embedded again).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluation.local_judge import LocalJudge
from evaluation.sample import Sample
from evaluation.scores import (
    answer_correctness_score,
    average_precision,
    context_precision_score,
    graded_mean_score,
    joint_faithfulness_score,
)
from ragtest_core import judge_params
from ragtest_core.relevance import token_share
from ragtest_core.schema import MetricResult
from ragtest_core.support import Evidence, Support, joint_support
from ragtest_core.textunits import unit


def statement_details(statements: Sequence[str], found: Sequence[Support]) -> list[dict[str, object]]:
    return [{"statement": s, **sp.details()} for s, sp in zip(statements, found, strict=True)]


def faithfulness(sample: Sample, judge: LocalJudge) -> MetricResult:
    statements = judge.claims(sample.answer or "")
    found = judge.support(statements, judge.evidence(sample.contexts), sample.question)
    together = joint_support(found, judge.settings.support) if found else 1.0
    result = joint_faithfulness_score(together, [s.value for s in found])
    return result.model_copy(update={"details": {"statements": statement_details(statements, found)}})


def context_recall(sample: Sample, judge: LocalJudge) -> MetricResult:
    base, reference = judge.settings.context_recall, sample.ground_truth or ""
    if base != "support":
        lexical = token_share(reference, " ".join(sample.contexts))
        cosine = float(judge.similarity(reference, sample.contexts, "cosine").max()) if base != "overlap" else 0.0
        value = {"overlap": lexical, "cosine": cosine}.get(base, 0.5 * (lexical + cosine))
        return MetricResult.ok(value, f"{base} similarity {value:.3f} of the reference and the contexts", base=base)
    statements = judge.statements(sample.ground_truth or "")
    if not statements:
        return MetricResult.failed("the reference has no statements to attribute")
    found = judge.support(statements, judge.evidence(sample.contexts), sample.question)
    result = graded_mean_score(
        [s.value for s in found],
        "the reference answer has no sentences",
        "mean support {mean:.3f} of {n} reference statements by the contexts ({high} attributable at >= 0.5)",
    )
    return result.model_copy(update={"details": {"statements": statement_details(statements, found)}})


def _own_share(statement: str, context: Evidence, others: Evidence) -> float:
    """The share of the statement's content words that this context holds and the other contexts do not."""
    keys = unit(statement).keys
    if not keys:
        return 0.0
    mine = frozenset(k for u in context.units for k in u.keys)
    theirs = frozenset(k for u in others.units for k in u.keys)
    return len(keys & (mine - theirs)) / len(keys)


def precision_verdicts(reference: str, sample: Sample, judge: LocalJudge) -> list[int] | None:
    """Per retrieved context, in rank order: 1 when it is useful for the reference (see the module docstring);
    None when the reference has no statements."""
    statements = judge.statements(reference)
    if not statements:
        return None
    evidence = judge.evidence(sample.contexts)
    question = sample.question
    useful_at = judge_params.PARAMS.useful_support
    together = [s.value >= useful_at for s in judge.support(statements, evidence, question)]
    everything = range(len(sample.contexts))
    verdicts = []
    for index in everything:
        sub = evidence.subset([index])
        alone = judge.support(statements, sub, question) if sub.sentences else []
        useful = any(s.value >= useful_at for s in alone)
        if not useful and any(together) and sub.sentences:
            rest = evidence.subset([k for k in everything if k != index])
            without = judge.support(statements, rest, question) if rest.sentences else []
            supported_without = [s.value >= useful_at for s in without] or [False] * len(statements)
            useful = any(
                t and not w and _own_share(statement, sub, rest) >= judge_params.PARAMS.own_share
                for statement, t, w in zip(statements, together, supported_without, strict=True)
            )
        verdicts.append(int(useful))
    return verdicts


def context_precision(reference: str, sample: Sample, judge: LocalJudge) -> MetricResult:
    base = judge.settings.context_precision
    if base != "support":
        graded = judge.similarity(reference, sample.contexts, base)
        value = min(1.0, average_precision(graded.tolist(), epsilon=0.0))
        reason = f"{base} similarity to the reference by rank {np.round(graded, 2).tolist()}"
        return MetricResult.ok(value, reason, verdicts=graded.round(4).tolist(), base=base)
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
    """Do the cited contexts (1-based ranks) support the statement? Graded support >= `citation_support`."""
    keep = [c - 1 for c in cited if 1 <= c <= len(sample.contexts)]
    if not keep:
        return False
    sub = judge.evidence(sample.contexts).subset(keep)
    if not sub.sentences:
        return False
    (found,) = judge.support([statement], sub, sample.question)
    return found.value >= judge_params.PARAMS.citation_support
