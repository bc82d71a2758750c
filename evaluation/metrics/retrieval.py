"""Retrieval metrics, no judge: hit rate@k, MRR and NDCG@k of `context_ids` against `reference_context_ids`.

Relevance is binary: a retrieved id is relevant when it is one of the row's gold ids. Retrieved ids are
deduplicated first, keeping each id's first (best) rank, so a repeated id is counted once and no score can
exceed 1 (LlamaIndex's MRR/NDCG counted repeats). The ideal DCG ranks min(|gold|, k) relevant items first.

- hit_rate@k: 1.0 when a gold id is among the first k retrieved ids, else 0.0.
- mrr: 1 / rank of the first gold id (no cut-off; 0.0 when none is retrieved).
- ndcg@k: DCG@k / IDCG@k with DCG = sum over relevant ranks r <= k of 1 / log2(r + 1).

Edge cases: no gold ids -> failed "no reference_context_ids"; the row's context_ids missing -> failed; an empty
retrieval -> 0.0 "nothing retrieved". Names accept a cut-off: "hit_rate@10", "ndcg@3" (default k = 5).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import ClassVar

from evaluation.metric import JudgeFreeMetric
from evaluation.sample import Sample
from ragtest_core.schema import CONTEXT_IDS, REFERENCE_CONTEXT_IDS, MetricResult

DEFAULT_K = 5


def dedupe(ids: Iterable[str]) -> list[str]:
    """The ids in order with repeats removed (each keeps its first rank)."""
    return list(dict.fromkeys(ids))


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def hit_rate(retrieved: Sequence[str], relevant: Iterable[str], k: int = DEFAULT_K) -> float:
    """1.0 when any relevant id is among the first k distinct retrieved ids."""
    _check_k(k)
    gold = set(relevant)
    return float(any(i in gold for i in dedupe(retrieved)[:k]))


def reciprocal_rank(retrieved: Sequence[str], relevant: Iterable[str]) -> float:
    """1 / rank of the first relevant id among the distinct retrieved ids (0.0 when there is none)."""
    gold = set(relevant)
    for rank, item in enumerate(dedupe(retrieved), start=1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def ndcg(retrieved: Sequence[str], relevant: Iterable[str], k: int = DEFAULT_K) -> float:
    """Binary-relevance NDCG@k over the distinct retrieved ids; the ideal ranking has min(|relevant|, k) hits."""
    _check_k(k)
    gold = set(relevant)
    if not gold:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, i in enumerate(dedupe(retrieved)[:k], start=1) if i in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return min(1.0, dcg / ideal)


class _RetrievalMetric(JudgeFreeMetric):
    required_columns: ClassVar[tuple[str, ...]] = (CONTEXT_IDS, REFERENCE_CONTEXT_IDS)
    needs_answer: ClassVar[bool] = False
    k: ClassVar[int] = DEFAULT_K

    def rag_failure(self, sample: Sample) -> MetricResult | None:
        if sample.answer_error is not None and not sample.context_ids:
            return MetricResult.failed(f"RAG error: {sample.answer_error}")
        return None

    def precheck(self, sample: Sample) -> MetricResult | None:
        if not sample.reference_context_ids:
            return MetricResult.failed("no reference_context_ids")
        if sample.context_ids is None:
            return MetricResult.failed("no context_ids")
        if not sample.context_ids:
            return MetricResult.ok(0.0, "nothing retrieved")
        return None

    def ranks(self, sample: Sample) -> list[int]:
        gold = set(sample.reference_context_ids or ())
        return [r for r, i in enumerate(dedupe(sample.context_ids or ()), start=1) if i in gold]

    def note(self, sample: Sample) -> str:
        repeats = len(sample.context_ids or ()) - len(dedupe(sample.context_ids or ()))
        found = self.ranks(sample)
        text = f"gold ids at ranks {found}" if found else "no gold id retrieved"
        return text + (f" ({repeats} repeated id(s) ignored)" if repeats else "")


class HitRate(_RetrievalMetric):
    name: ClassVar[str] = "hit_rate"

    def compute(self, sample: Sample) -> MetricResult:
        value = hit_rate(sample.context_ids or (), sample.reference_context_ids or (), self.k)
        return MetricResult.ok(value, f"hit@{self.k}: {self.note(sample)}")


class MRR(_RetrievalMetric):
    name: ClassVar[str] = "mrr"

    def compute(self, sample: Sample) -> MetricResult:
        value = reciprocal_rank(sample.context_ids or (), sample.reference_context_ids or ())
        return MetricResult.ok(value, f"reciprocal rank: {self.note(sample)}")


class NDCG(_RetrievalMetric):
    name: ClassVar[str] = "ndcg"

    def compute(self, sample: Sample) -> MetricResult:
        value = ndcg(sample.context_ids or (), sample.reference_context_ids or (), self.k)
        return MetricResult.ok(value, f"ndcg@{self.k}: {self.note(sample)}")


def at_k(metric_class: type[_RetrievalMetric], k: int) -> type[_RetrievalMetric]:
    """A variant of a retrieval metric with cut-off `k`, named "<name>@k" (its own score column)."""
    _check_k(k)
    name = f"{metric_class.name}@{k}"
    return type(f"{metric_class.__name__}At{k}", (metric_class,), {"name": name, "k": k})
