"""Citation recall and precision (Liu et al. 2023; ALCE, Gao et al. 2023) for answers citing contexts as [n].

The answer is split into sentences; each sentence's markers ("[1]", "[1][3]", "[2, 4]") cite the contexts by
1-based rank; markers that open a sentence (after the previous full stop) belong to the sentence before it.
Sentences without content words (and hedges) are not statements.

- citation_recall: share of statements fully supported by the concatenation of their cited contexts; a statement
  without a citation is unsupported.
- citation_precision: share of citations that support their statement. A lone citation is precise when it
  supports the statement; of several citations that together support it, one is irrelevant when it does not
  support the statement alone AND the other citations still do; citations of an unsupported statement are
  imprecise. A marker beyond the last context cites nothing and is imprecise.

"Supports": the LLM judge answers an entailment prompt (premise: the cited contexts; hypothesis: the statement);
the local judge's verdict is the graded support on the cited contexts' sentences reaching 0.5
(`evaluation.local_scoring.citation_supported`). Under the LLM judge the statements are the run's shared statement
step (`LLMJudge.statements`, the ones faithfulness judges), each keeping its sentence's markers; a statement the
judge returned without markers cites what the answer sentence it comes from cites (the sentence whose content
words it covers most).
Edge cases: an answer without any marker -> both 0.0 with reason
"no citation markers in the answer"; a refusal -> both 1.0 "refusal: no statements to cite"; an empty answer ->
both 0.0 "empty answer".
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import ClassVar

from evaluation import local_scoring
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.prompts import SupportVerdict, statements_call, support_call
from evaluation.refusal import is_noncommittal_sentence, is_refusal
from evaluation.sample import Sample
from evaluation.scores import CitationJudgement, citation_precision_score, citation_recall_score
from evaluation.statements import MARKER as _MARKER
from evaluation.statements import marker_numbers as _numbers
from evaluation.statements import strip_markers
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import ANSWER, CONTEXTS, MetricResult
from ragtest_core.text import content_tokens, sentences_of
from ragtest_core.textunits import strip_citations

_LEADING = re.compile(r"^\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+")
Subset = tuple[int, ...]
Unit = tuple[str, Subset]


def cited_statements(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """(statement without markers, cited context numbers in order, repeats removed) for each answer statement."""
    units: list[tuple[str, list[int]]] = []
    for sentence in sentences_of(answer):
        leading = _LEADING.match(sentence)
        if leading and units:  # "... ft). [2] It also ...": the markers after the full stop cite the sentence before
            units[-1][1].extend(_numbers(leading.group(0)))
            sentence = sentence[leading.end() :]
        numbers = _numbers(sentence)
        text = strip_citations(sentence).strip()
        if not content_tokens(text) and units:  # markers after the full stop belong to the sentence before
            units[-1][1].extend(numbers)
            continue
        units.append((text, numbers))
    return [
        (text, tuple(dict.fromkeys(numbers)))
        for text, numbers in units
        if content_tokens(text) and not is_noncommittal_sentence(text)
    ]


def cited_units(statements: Sequence[str], answer: str) -> list[Unit]:
    """The shared step's statements without their markers, each with the contexts it cites (repeats removed);
    a statement without markers cites what the answer sentence it comes from cites (`source_citations`)."""
    sentences = cited_statements(answer)
    plain = [(strip_markers(statement), statement) for statement in statements]
    return [
        (text, tuple(dict.fromkeys(_numbers(statement))) or source_citations(text, sentences))
        for text, statement in plain
        if content_tokens(text) and not is_noncommittal_sentence(text)
    ]


def source_citations(statement: str, sentences: Sequence[Unit]) -> Subset:
    """The citations of the answer sentence `statement` comes from: the one whose content words it covers most
    (a statement restates its sentence with pronouns resolved); none when it shares no word with any."""
    words = set(content_tokens(statement))
    shares = [
        ((len(words & own) / len(own), len(words & own)), cited)
        for text, cited in sentences
        if words & (own := set(content_tokens(text)))
    ]
    return max(shares, key=lambda share: share[0], default=((0.0, 0), ()))[1]


def subsets_to_judge(citations: Subset) -> list[Subset]:
    """The citation sets whose support ALCE needs: all of them; with several, each alone and each left out."""
    if not citations:
        return []
    needed = [citations]
    if len(citations) > 1:
        needed += [(c,) for c in citations]
        needed += [tuple(x for x in citations if x != c) for c in citations]
    return list(dict.fromkeys(needed))


def assemble(citations: Subset, verdicts: dict[Subset, bool]) -> CitationJudgement:
    if not citations:
        return CitationJudgement(citations=(), supported=False)
    alone = tuple(verdicts[(c,)] for c in citations) if len(citations) > 1 else ()
    without = tuple(verdicts[tuple(x for x in citations if x != c)] for c in citations) if len(citations) > 1 else ()
    return CitationJudgement(citations=citations, supported=verdicts[citations], alone=alone, without=without)


class _CitationMetric(Metric):
    required_columns: ClassVar[tuple[str, ...]] = (ANSWER, CONTEXTS)
    #: The score of the answer's statements' judgements.
    formula: ClassVar[staticmethod[[Sequence[CitationJudgement]], MetricResult]]
    scale_note: ClassVar[str] = (
        "For RAGs whose answers cite their contexts (Liu et al. 2023, ALCE). Local judge: a citation supports when "
        "its contexts' graded support of the statement reaches 0.5; LLM judge: an entailment verdict."
    )

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.answer is None:
            return MetricResult.ok(0.0, "empty answer")
        if is_refusal(sample.answer):
            return MetricResult.ok(1.0, "refusal: no statements to cite")
        if _MARKER.search(sample.answer) is None:
            return MetricResult.ok(0.0, "no citation markers in the answer")
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        statements = [s for s, _ in cited_statements(sample.answer or "")]
        return judge.support_texts(statements, sample.contexts)

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        judgements = []
        for statement, citations in cited_statements(sample.answer or ""):
            verdicts = {
                subset: local_scoring.citation_supported(statement, subset, sample, judge)
                for subset in subsets_to_judge(citations)
            }
            judgements.append(assemble(citations, verdicts))
        return self.formula(judgements)

    def support_calls(self, sample: Sample, units: Sequence[Unit]) -> list[tuple[int, Subset, PlannedCall | None]]:
        """(statement index, citation subset, its entailment call or None when it cites no existing context)."""
        jobs: list[tuple[int, Subset, PlannedCall | None]] = []
        for index, (statement, citations) in enumerate(units):
            for subset in subsets_to_judge(citations):
                found = [sample.contexts[c - 1] for c in subset if 1 <= c <= len(sample.contexts)]
                call = support_call(f"{self.name}.support", "\n\n".join(found), statement) if found else None
                jobs.append((index, subset, call))
        return jobs

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """The shared statement step, then the entailment calls (the answer's sentences stand in for statements)."""
        answer = sample.answer or ""
        jobs = self.support_calls(sample, cited_units(sentences_of(answer), answer))
        return [statements_call(sample.question or "", answer), *(c for _, _, c in jobs if c)]

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        async def supported(call: PlannedCall | None) -> bool:
            return call is not None and bool((await judge.ask(call, SupportVerdict)).verdict)

        statements = await judge.statements(sample.question or "", sample.answer or "")
        units = cited_units(statements, sample.answer or "")
        jobs = self.support_calls(sample, units)
        answers = await asyncio.gather(*(supported(call) for _, _, call in jobs))
        verdicts: list[dict[Subset, bool]] = [{} for _ in units]
        for (index, subset, _), verdict in zip(jobs, answers, strict=True):
            verdicts[index][subset] = verdict
        return self.formula([assemble(c, v) for (_, c), v in zip(units, verdicts, strict=True)])


class CitationRecall(_CitationMetric):
    name: ClassVar[str] = "citation_recall"
    definition: ClassVar[str] = (
        "The share of the answer's statements fully supported by the contexts they cite with [n] markers (an "
        "uncited statement counts as unsupported; an answer without markers scores 0, a refusal 1)."
    )
    formula = staticmethod(citation_recall_score)


class CitationPrecision(_CitationMetric):
    name: ClassVar[str] = "citation_precision"
    definition: ClassVar[str] = (
        "The share of the answer's [n] citations that support their statement (a citation the others make "
        "redundant, or one of an unsupported statement, is imprecise; no markers scores 0, a refusal 1)."
    )
    formula = staticmethod(citation_precision_score)
