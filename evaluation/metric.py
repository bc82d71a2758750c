"""The metric protocol: shared edge cases, a local judge step, an LLM judge step, and one `ascore` entry point.

A custom metric subclasses `Metric`, sets `name` and `required_columns`, implements `score_local` and/or
`score_llm`, and is registered with `register_metric` (or passed to `evaluate_dataset` as an instance). Its
`definition` and `scale_note` are what the report prints beside its score (`explain`); without them the report says
"no definition given".
"""

from __future__ import annotations

import logging
from abc import ABC
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import ClassVar

from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.sample import Sample
from ragtest_core.errors import LLMError, LLMPermanentError
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import MetricResult

Judge = LocalJudge | LLMJudge
logger = logging.getLogger(__name__)

#: What a metric's scores are, for the report's "rows to look at": every row 0 or 1 (a hit or a miss)...
BINARY = "binary"
#: ... 0 for a miss, 1 for the best rank, in between for a hit lower down (MRR, NDCG) ...
RANK = "rank"
#: ... or anywhere in [0, 1] (shares of statements, similarities).
GRADED = "graded"
#: What a report says of a metric that declares no `definition` (a user's metric, or a name not registered here).
NO_DEFINITION = "no definition given"


class Metric(ABC):  # noqa: B024 - a subclass implements either judge step, so neither is abstract
    """One score per row in [0, 1], or a failure with a reason."""

    #: The score column's name.
    name: ClassVar[str] = ""
    #: Columns the dataset must have; checked for every selected metric before any LLM call.
    required_columns: ClassVar[tuple[str, ...]] = ()
    #: True when the score judges the RAG answer: a row whose RAG call failed gets no score.
    needs_answer: ClassVar[bool] = True
    #: BINARY, RANK or GRADED (see above): how the report picks the rows to look at.
    scale: ClassVar[str] = GRADED
    #: False for metrics where lower is better (hallucination, noise sensitivity): compare's better/worse, wins and
    #: losses, and the report's rows to look at and weak spots turn round for them.
    higher_is_better: ClassVar[bool] = True
    #: A score at or above this reads as "yes" (Cohen's kappa against human labels, verdict changes of repeats).
    threshold: ClassVar[float] = 0.5
    #: One line for the report, beside the score: what the score measures and what its 0 and 1 mean.
    definition: ClassVar[str] = ""
    #: How the score reads: what typical values look like, and how the local judge's scale reads against the LLM
    #: judge's (or that no judge is involved). Shown under the definition.
    scale_note: ClassVar[str] = ""

    def missing_columns(self, columns: Collection[str]) -> list[str]:
        """Required columns that `columns` lacks (override for either-or requirements)."""
        return [c for c in self.required_columns if c not in columns]

    def precheck(self, sample: Sample) -> MetricResult | None:
        """A result decided without any judge (empty inputs, refusals), or None to go on to the judge."""
        return None

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        """Every text `score_local` will embed, so the engine can embed a whole run in one batch."""
        return []

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return MetricResult.failed(f"{self.name} has no local judge; use judge='llm'")

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        return MetricResult.failed(f"{self.name} has no LLM judge; use judge='local'")

    def llm_prompts(self, sample: Sample) -> list[PlannedCall]:
        """The judge calls `score_llm` makes for `sample` (after `rag_failure` and `precheck` let it through).

        A call whose prompt depends on an earlier reply (the statements faithfulness extracts) is planned with
        the answer's sentences standing in for that reply. [] for a metric without LLM calls; a custom metric
        that makes calls should override it, or `--dry-run` does not count them. `score_llm` sends each planned
        call with `judge.ask(call, Schema)` (once per run, however many metrics ask), so what is planned is what
        is sent; a step others wait for passes `priority=FIRST_STEP`."""
        return []

    def rag_failure(self, sample: Sample) -> MetricResult | None:
        """A failed result when the RAG system failed on this row and the metric needs what it would return."""
        if sample.answer_error is None:
            return None
        if self.needs_answer or not sample.contexts:
            return MetricResult.failed(f"RAG error: {sample.answer_error}")
        return None

    async def ascore(self, sample: Sample, judge: Judge) -> MetricResult:
        """Score one row. Judge failures become failed results; a permanent LLM error stops the run."""
        try:
            decided = self.rag_failure(sample) or self.precheck(sample)
            if decided is not None:
                return decided
            if isinstance(judge, LocalJudge):
                return self.score_local(sample, judge)
            return await self.score_llm(sample, judge)
        except LLMPermanentError:
            raise
        except LLMError as exc:
            return MetricResult.failed(f"LLM judge failed: {exc}")
        except Exception as exc:  # a bug in a (custom) metric must not lose the run; the row keeps the reason
            logger.exception("metric %s failed on a row", self.name)
            return MetricResult.failed(f"{self.name} raised {type(exc).__name__}: {exc}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class JudgeFreeMetric(Metric):
    """A metric computed from the row alone (retrieval ranks, text overlap): the same score under every judge."""

    def compute(self, sample: Sample) -> MetricResult:
        raise NotImplementedError

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return self.compute(sample)

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        return self.compute(sample)


@dataclass(frozen=True)
class MetricExplanation:
    """What a report prints beside a metric's score: its definition, how its scale reads, which way is better."""

    name: str
    definition: str
    scale_note: str = ""
    higher_is_better: bool = True

    @property
    def defined(self) -> bool:
        return self.definition != NO_DEFINITION


def judged_score(verdicts: Sequence[int], expected: int, formula: Callable[[list[int]], MetricResult]) -> MetricResult:
    """`formula` of the judge's verdicts cut to the number of items judged, with a note when the judge returned a
    different count; failed when it returned none."""
    if not verdicts:
        return MetricResult.failed("the judge returned no verdicts")
    note = f" (judge returned {len(verdicts)} verdicts for {expected} items)" if len(verdicts) != expected else ""
    return with_note(formula(list(verdicts)[:expected]), note)


def with_note(result: MetricResult, note: str) -> MetricResult:
    """The result with `note` appended to its reason."""
    return result.model_copy(update={"reason": f"{result.reason}{note}"}) if note else result
