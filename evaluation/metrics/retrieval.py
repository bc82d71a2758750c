"""Retrieval metrics, no judge: hit rate@k, MRR and NDCG@k of `context_ids` against `reference_context_ids`.

Relevance is binary: a retrieved id is relevant when it is one of the row's gold ids. Retrieved ids are
deduplicated first, keeping each id's first (best) rank, so a repeated id is counted once and no score can
exceed 1 (LlamaIndex's MRR/NDCG counted repeats). The ideal DCG ranks min(|gold|, k) relevant items first.

- hit_rate@k: 1.0 when a gold id is among the first k retrieved ids, else 0.0.
- all_gold_hit@k: 1.0 when every gold id is among the first k retrieved ids (a multi-hop question's evidence), else
  0.0.
- mrr: 1 / rank of the first gold id (no cut-off; 0.0 when none is retrieved).
- ndcg@k: DCG@k / IDCG@k with DCG = sum over relevant ranks r <= k of 1 / log2(r + 1).

The cut-off k: by default every context the RAG returned (k = the row's number of distinct retrieved ids, so a RAG
returning 4 is scored at hit@4); `--retrieval-k N` (`evaluate_dataset(retrieval_k=N)`) sets it for hit_rate,
all_gold_hit and ndcg, and a name with a cut-off ("hit_rate@10", "ndcg@3") scores at that k in its own column. The
reason states the k used.

When no retrieved id is a gold id (a user's RAG with its own chunk ids), retrieved contexts are matched to the gold
chunks by text instead (`evaluation.metrics.gold_mapping`: exact, then high overlap), and the reason says which
mapping was used.

Edge cases: no gold ids or texts -> failed "no reference_context_ids"; a retrieval that returned nothing (no
context ids, whether None or [], and no contexts) -> 0.0 "nothing retrieved": the same in memory (`ragtest run`,
where a RAG without ids gives None) and after the file round trip (`answer` + `evaluate`, where it reads []).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import ClassVar

from evaluation.metric import BINARY, RANK, JudgeFreeMetric
from evaluation.metrics.gold_mapping import IDS, gold_label, is_gold_label, map_by_text
from evaluation.sample import Sample
from ragtest_core.schema import CONTEXT_IDS, CONTEXTS, REFERENCE_CONTEXT_IDS, REFERENCE_CONTEXTS, MetricResult


def dedupe(ids: Iterable[str]) -> list[str]:
    """The ids in order with repeats removed (each keeps its first rank)."""
    return list(dict.fromkeys(ids))


def _check_k(k: int | None) -> None:
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def hit_rate(retrieved: Sequence[str], relevant: Iterable[str], k: int | None = None) -> float:
    """1.0 when any relevant id is among the first k distinct retrieved ids (k None: all of them)."""
    _check_k(k)
    gold = set(relevant)
    return float(any(i in gold for i in dedupe(retrieved)[:k]))


def all_hit(retrieved: Sequence[str], relevant: Iterable[str], k: int | None = None) -> float:
    """1.0 when every relevant id is among the first k distinct retrieved ids (k None: all of them)."""
    _check_k(k)
    gold = set(relevant)
    return float(bool(gold) and gold <= set(dedupe(retrieved)[:k]))


def reciprocal_rank(retrieved: Sequence[str], relevant: Iterable[str]) -> float:
    """1 / rank of the first relevant id among the distinct retrieved ids (0.0 when there is none)."""
    gold = set(relevant)
    return next((1.0 / rank for rank, item in enumerate(dedupe(retrieved), start=1) if item in gold), 0.0)


def ndcg(retrieved: Sequence[str], relevant: Iterable[str], k: int | None = None) -> float:
    """Binary-relevance NDCG@k over the distinct retrieved ids; the ideal ranking has min(|relevant|, k) hits
    (k None: every retrieved id, at least 1)."""
    if k is None:
        k = max(1, len(dedupe(retrieved)))
    _check_k(k)
    gold = set(relevant)
    if not gold:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, i in enumerate(dedupe(retrieved)[:k], start=1) if i in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return min(1.0, dcg / ideal)


def shared_gold_note(labels: Sequence[str]) -> str:
    """With retrieved texts matched to gold chunks: how many retrieved chunks matched a gold chunk that an earlier
    one matched too (each gold chunk counts once, at its first rank), e.g. " (2 retrieved chunks match the same gold
    chunk: counted once, at the first rank)"; "" when no two share one."""
    counts = Counter(label for label in labels if is_gold_label(label))
    shared = [count for count in counts.values() if count > 1]
    if not shared:
        return ""
    if len(shared) == 1:
        return f" ({shared[0]} retrieved chunks match the same gold chunk: counted once, at the first rank)"
    return (
        f" ({sum(shared)} retrieved chunks match {len(shared)} gold chunks between them: each gold chunk counted "
        "once, at its first rank)"
    )


class RetrievalMetric(JudgeFreeMetric):
    required_columns: ClassVar[tuple[str, ...]] = (CONTEXT_IDS, REFERENCE_CONTEXT_IDS)
    scale_note: ClassVar[str] = (
        "No judge: the same under both judges. Matched by chunk id, or by text when the RAG's ids are its own; k "
        "is every context the RAG returned unless --retrieval-k or the name's @k sets it (each row's reason says "
        "which)."
    )
    needs_answer: ClassVar[bool] = False
    #: The cut-off (None: every retrieved context).
    k: ClassVar[int | None] = None
    #: How the reason names the score; "{k}" stands for the cut-off used.
    label: ClassVar[str] = ""
    #: The score of (retrieved ids, gold ids, k).
    function: ClassVar[staticmethod[[list[str], list[str], int | None], float]]

    def missing_columns(self, columns: Collection[str]) -> list[str]:
        """Retrieved ids or texts, and gold ids or texts (texts are matched when ids are not ragtest's)."""
        either = ((CONTEXT_IDS, CONTEXTS), (REFERENCE_CONTEXT_IDS, REFERENCE_CONTEXTS))
        return [f"{ids} (or {texts})" for ids, texts in either if ids not in columns and texts not in columns]

    def rag_failure(self, sample: Sample) -> MetricResult | None:
        if sample.answer_error is not None and not sample.context_ids and not sample.contexts:
            return MetricResult.failed(f"RAG error: {sample.answer_error}")
        return None

    def precheck(self, sample: Sample) -> MetricResult | None:
        if not sample.reference_context_ids and not sample.reference_contexts:
            return MetricResult.failed("no reference_context_ids")
        if not sample.context_ids and not sample.contexts:
            return MetricResult.ok(0.0, "nothing retrieved")
        return None

    def resolved(self, sample: Sample) -> tuple[list[str], list[str], str]:
        """(retrieved ids, gold ids, mapping): the row's own ids when any retrieved id is a gold id, else the
        retrieved contexts matched to the gold chunks by text."""
        retrieved, gold = list(sample.context_ids or ()), list(sample.reference_context_ids or ())
        if set(retrieved) & set(gold) or not (sample.contexts and sample.reference_contexts):
            return retrieved, gold, IDS
        mapping = map_by_text(sample.contexts, sample.reference_contexts)
        return mapping.retrieved, mapping.gold, mapping.method

    def mapped_ids(self, sample: Sample) -> list[str] | None:
        """Each retrieved context's id as a gold id where it is one (by id, or by its text: the gold chunk's id),
        else the RAG's own id; None when the row has no retrieved contexts."""
        retrieved, _, method = self.resolved(sample)
        if not retrieved:
            return None
        if method == IDS:
            return retrieved
        references = list(sample.reference_context_ids or ())
        own = list(sample.context_ids or ())
        by_label = {gold_label(j): ref for j, ref in enumerate(references)}
        return [
            by_label.get(label, label) if is_gold_label(label) else (own[i] if i < len(own) else label)
            for i, label in enumerate(retrieved)
        ]

    def compute(self, sample: Sample) -> MetricResult:
        retrieved, gold, method = self.resolved(sample)
        distinct = dedupe(retrieved)
        found = [r for r, i in enumerate(distinct, start=1) if i in set(gold)]
        if method == IDS:
            note = f"gold ids at ranks {found}" if found else "no gold id retrieved"
            repeats = len(retrieved) - len(distinct)
            note += f" ({repeats} repeated id(s) ignored)" if repeats else ""
        else:
            note = f"gold chunks at ranks {found} (matched by {method}: the retrieved ids are not the test set's)"
            if not found:
                note = "no gold chunk retrieved (no retrieved id is a gold id, and no retrieved text matches a gold "
                note += "chunk)"
            note += shared_gold_note(retrieved)
        k = str(self.k) if self.k is not None else f"{max(1, len(distinct))} (all retrieved)"
        return MetricResult.ok(self.function(retrieved, gold, self.k), f"{self.label.format(k=k)}: {note}")


class HitRate(RetrievalMetric):
    name: ClassVar[str] = "hit_rate"
    definition: ClassVar[str] = (
        "1 when a gold chunk (one the reference answer came from) is among the first k retrieved contexts, else "
        "0: the mean is the share of questions whose gold chunk was retrieved."
    )
    scale: ClassVar[str] = BINARY
    label: ClassVar[str] = "hit@{k}"
    function = staticmethod(hit_rate)


class AllGoldHit(RetrievalMetric):
    name: ClassVar[str] = "all_gold_hit"
    definition: ClassVar[str] = (
        "1 only when every gold chunk is among the first k retrieved contexts, else 0: for multi-hop questions, "
        "whose answer needs each of their gold chunks, the share of questions whose evidence was all retrieved."
    )
    scale: ClassVar[str] = BINARY
    label: ClassVar[str] = "all gold@{k}"
    function = staticmethod(all_hit)


class MRR(RetrievalMetric):
    name: ClassVar[str] = "mrr"
    definition: ClassVar[str] = (
        "1 / the rank of the first gold chunk among the retrieved contexts: 1 = first, 0.5 = second, 0 = not "
        "retrieved (no cut-off)."
    )
    scale: ClassVar[str] = RANK
    label: ClassVar[str] = "reciprocal rank"
    function = staticmethod(lambda retrieved, gold, k: reciprocal_rank(retrieved, gold))  # no cut-off


class NDCG(RetrievalMetric):
    name: ClassVar[str] = "ndcg"
    definition: ClassVar[str] = (
        "How high the gold chunks rank in the first k retrieved contexts, against the ideal order (discounted "
        "gain): 1 = gold chunks first, 0 = none retrieved."
    )
    scale: ClassVar[str] = RANK
    label: ClassVar[str] = "ndcg@{k}"
    function = staticmethod(ndcg)


def at_k(metric_class: type[RetrievalMetric], k: int, named: bool = True) -> type[RetrievalMetric]:
    """A variant of a retrieval metric with cut-off `k`, named "<name>@k" (its own score column), or keeping its
    name (`named=False`: the run's `--retrieval-k`)."""
    _check_k(k)
    name = f"{metric_class.name}@{k}" if named else metric_class.name
    return type(f"{metric_class.__name__}At{k}", (metric_class,), {"name": name, "k": k})


#: The retrieval metric classes with a cut-off (`--retrieval-k` applies to them).
CUT_OFF_METRICS: tuple[type[RetrievalMetric], ...] = (HitRate, AllGoldHit, NDCG)
