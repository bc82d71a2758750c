"""The scoring engine: every selected metric on every row, concurrently, then a summary per metric.

The local judge scores the rows in partitions: it embeds all texts of a partition in one batch, then scores its
rows (speed only: a row's scores depend on nothing but the row, the judge's settings and the models; no statistic
is taken over a partition). A partition's texts fit in half of the embedder's memo, so memory stays bounded
however many rows a run has, and the vectors embedded ahead are still there when the rows are scored. The LLM judge
scores every row and metric at once, its calls in the client's one queue by row, CPU work in its worker thread
(docs/llm.md). Never gate the rows in waves or partitions here: each wave's end would leave slots idle
(tests/evaluation/test_llm_judge_pipelining.py). Nothing is written to disk here.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd
from tqdm.auto import tqdm

from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Judge, Metric
from evaluation.metrics.retrieval import RetrievalMetric
from evaluation.registry import ALL, resolve_metrics
from evaluation.sample import DEFAULT_MAX_FIELD_CHARS, Sample
from evaluation.stability import combine_rows, repeats_column, spread_column, stability_summary
from evaluation.stats import summarise
from ragtest_core.asyncio_utils import blocking, run_sync
from ragtest_core.datasets import records
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.errors import MissingColumnsError, RagtestError
from ragtest_core.relevance import load_centring_mean
from ragtest_core.schema import MAPPED_CONTEXT_IDS, MetricResult, reason_column

if TYPE_CHECKING:  # annotations only: the client module imports LangChain's chat models (seconds)
    from ragtest_core.llm.client import LLMClient

#: Texts per `embed` call when a partition is embedded (the model batches further inside a call, sorted by length).
EMBED_BATCH = 4096
#: Scores rows elsewhere (e.g. on a cluster): the selected metrics and the rows -> each row's results, in order.
RowScorer = Callable[[Sequence[Metric], list[dict[str, Any]]], list[dict[str, MetricResult]]]


@dataclass
class EvaluationResult:
    """The scored dataset, its summary, and each row's full `MetricResult`s (with the judges' details)."""

    frame: pd.DataFrame
    summary: dict[str, dict[str, Any]]
    results: list[dict[str, MetricResult]] = field(default_factory=list)
    judge: str = "local"
    #: Metrics "all" selected but the dataset cannot feed, with the columns they lack.
    skipped: dict[str, str] = field(default_factory=dict)
    #: Texts cut to the size limit before scoring: {"limit", "rows", "fields": {field: rows}, "row_numbers"}
    #: (empty when none was).
    fields_cut: dict[str, Any] = field(default_factory=dict)

    @property
    def metric_names(self) -> list[str]:
        return list(self.summary)


def make_judge(judge: str, llm: LLMClient | None, embedder: Embedder | None, repeat: int = 0) -> Judge:
    """The judge named `judge`; an LLM judge asks as repeat `repeat` (r > 0: calls of its own, see `LLMJudge`)."""
    embedder = embedder or get_embedder()
    if judge == "local":
        return LocalJudge(embedder)
    if judge == "llm":
        if llm is None:
            raise RagtestError("judge='llm' needs an LLM client (pass llm=..., or use judge='local' offline)")
        return LLMJudge(llm=llm, embedder=embedder, reference_mean=load_centring_mean(), repeat=repeat)
    raise RagtestError(f"unknown judge {judge!r}; use 'local' or 'llm'")


def embed_in_batches(embedder: Embedder, texts: Iterable[str]) -> None:
    """Embed every distinct non-empty text once, in as few `embed` calls as possible (fills the embedder's memo)."""
    unique = sorted({t for t in texts if t}, key=len)
    for start in range(0, len(unique), EMBED_BATCH):
        embedder.embed(unique[start : start + EMBED_BATCH])


def local_partitions(
    judge: LocalJudge, metrics: Sequence[Metric], samples: Sequence[Sample]
) -> Iterator[tuple[range, list[str]]]:
    """Consecutive row ranges whose texts to embed number at most half the embedder's memo (a single row may have
    more), each with those texts."""
    max_texts = judge.embedder.memo_size // 2
    start = 0
    texts: list[str] = []
    for index, sample in enumerate(samples):
        row = {t for metric in metrics for t in texts_to_embed(metric, sample, judge) if t}
        if index > start and len(texts) + len(row) > max_texts:
            yield range(start, index), texts
            start, texts = index, []
        texts.extend(row)
    if start < len(samples):
        yield range(start, len(samples)), texts


def texts_to_embed(metric: Metric, sample: Sample, judge: LocalJudge) -> list[str]:
    """The texts `metric` will embed for `sample`; none when no judge is needed (or the metric fails here:
    scoring reports that failure on the row)."""
    try:
        decided = metric.rag_failure(sample) is not None or metric.precheck(sample) is not None
        return [] if decided else metric.local_texts(sample, judge)
    except Exception:
        return []


async def aevaluate_dataset(
    frame: pd.DataFrame,
    *,
    metrics: Sequence[str | Metric] | None = None,
    judge: str = "local",
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    show_progress: bool = True,
    retrieval_k: int | None = None,
    repeats: int = 1,
    max_field_chars: int | None = DEFAULT_MAX_FIELD_CHARS,
    row_scorer: RowScorer | None = None,
) -> EvaluationResult:
    """Score every row of `frame` with every selected metric.

    `metrics` are names (see `available_metrics()`) and/or `Metric` instances. `judge` is "local" (offline:
    embeddings plus lexical alignment) or "llm" (the RAGAS prompts through `llm`). All metrics' columns are
    checked first (`MissingColumnsError`, before any LLM call); `judge="llm"` without `llm` is a `RagtestError`.
    Rows with an `answer_error` get failed results ("RAG error: ...") for metrics that need the RAG output.
    The result's frame has the input columns, one score column per metric (float in [0, 1] or None, never NaN)
    and a non-empty `<metric>_reason` column per metric; with a retrieval metric, also `mapped_context_ids`: each
    retrieved context's gold id where it is a gold chunk (matched by id or text), else its own id.
    `metrics="all"` (or a list holding "all") scores every registered metric the dataset has the columns for
    (the others are in `result.skipped`). `retrieval_k` cuts hit_rate and ndcg at k (default: all retrieved).
    `repeats` > 1 (LLM judge only) scores every row that many times and keeps the mean, with each metric's
    stability in the summary (`evaluation.stability`). `row_scorer` scores the rows elsewhere (a cluster:
    `ragtest.distributed`); the rest is the same. A text longer than `max_field_chars` is scored on its first
    `max_field_chars` characters (None: no limit); the row's reasons and `fields_cut` say so.
    """
    selected = resolve_metrics(metrics, retrieval_k)
    columns = set(map(str, frame.columns))
    skipped = {m.name: ", ".join(lack) for m in selected if (lack := m.missing_columns(columns))}
    if metrics is not None and ALL in ([metrics] if isinstance(metrics, str) else list(metrics)):
        selected = [m for m in selected if m.name not in skipped]
    elif skipped:
        problems = "; ".join(f"{name} needs {lack}" for name, lack in skipped.items())
        raise MissingColumnsError(f"{problems}; the dataset has: {', '.join(map(str, frame.columns))}")
    if repeats < 1:
        raise RagtestError(f"repeats must be at least 1, got {repeats}")
    if repeats > 1 and judge != "llm":
        raise RagtestError("repeats apply to the LLM judge; the local judge gives the same score every time")
    if repeats > 1 and row_scorer is not None:
        raise RagtestError("repeats are scored in this process: leave out the row scorer (--ray) to repeat")
    rows = records(frame)
    samples = [Sample.from_row(row, max_field_chars) for row in rows]
    names = [m.name for m in selected]
    desc = f"scoring ({judge} judge)" + (f" x{repeats}" if repeats > 1 else "")
    with tqdm(total=len(samples) * repeats, desc=desc, unit="row", disable=not show_progress) as bar:
        if row_scorer is not None:
            runs = [row_scorer(selected, rows)]
        else:
            runs = await asyncio.gather(
                *(score_samples(selected, make_judge(judge, llm, embedder, r), samples, bar) for r in range(repeats))
            )
    results = runs[0] if repeats == 1 else combine_rows(runs, names, {m.name: m.threshold for m in selected})
    results = [note_cuts(sample, row, max_field_chars) for sample, row in zip(samples, results, strict=True)]
    summary = summarise(names, results, groups=groups_of(samples))
    out = with_mapped_ids(scored_frame(frame, names, results), selected, samples)
    for name in names if repeats > 1 else ():
        summary[name]["stability"] = stability_summary(results, name, repeats)
        for column, key in ((repeats_column(name), "repeats"), (spread_column(name), "spread")):
            out[column] = pd.Series([r[name].details.get(key) for r in results], index=out.index, dtype=object)
    return EvaluationResult(out, summary, results, str(judge), skipped, cuts_summary(samples, max_field_chars))


async def score_samples(
    metrics: Sequence[Metric], judge: Judge, samples: Sequence[Sample], bar: tqdm | None
) -> list[dict[str, MetricResult]]:
    """Every metric on every row, in row order: the local judge partition by partition (`local_partitions`),
    the LLM judge all at once (then closed)."""
    if isinstance(judge, LLMJudge):
        try:
            return await score_rows(metrics, judge, samples, bar)
        finally:
            judge.close()
    results: list[dict[str, MetricResult]] = []
    for rows, texts in local_partitions(judge, metrics, samples):
        embed_in_batches(judge.embedder, texts)
        part = [samples[i] for i in rows]
        results.extend(await score_rows(metrics, judge, part, bar, offset=rows.start))
    return results


def note_cuts(sample: Sample, results: dict[str, MetricResult], limit: int | None) -> dict[str, MetricResult]:
    """A row's results, each reason saying which of its texts were cut to the size limit before scoring."""
    if not sample.cut:
        return results
    cut = ", ".join(f"{name} ({length:,} characters)" for name, length in sample.cut)
    note = f"[scored on the first {limit:,} characters of: {cut}; max_field_chars]"
    return {
        name: result.model_copy(update={"reason": f"{result.reason} {note}".strip()})
        for name, result in results.items()
    }


def cuts_summary(samples: Sequence[Sample], limit: int | None) -> dict[str, Any]:
    """How many rows had a text cut to the size limit, by field (contexts counted as one field)."""
    rows = [number for number, sample in enumerate(samples, start=1) if sample.cut]
    fields = Counter(name for sample in samples for name in sorted({name.split("[", 1)[0] for name, _ in sample.cut}))
    return {"limit": limit, "rows": len(rows), "fields": dict(fields), "row_numbers": rows[:100]} if rows else {}


async def score_rows(
    metrics: Sequence[Metric], judge: Judge, samples: Sequence[Sample], bar: tqdm | None, offset: int = 0
) -> list[dict[str, MetricResult]]:
    """Every metric on every row, all at once; a row's calls carry its index, so earlier rows finish first."""

    async def score_row(index: int, sample: Sample) -> dict[str, MetricResult]:
        row_judge = judge.for_row(offset + index) if isinstance(judge, LLMJudge) else judge
        scored = await asyncio.gather(*(m.ascore(sample, row_judge) for m in metrics))
        if bar is not None:
            bar.update(1)
        return {m.name: r for m, r in zip(metrics, scored, strict=True)}

    return list(await asyncio.gather(*(score_row(i, s) for i, s in enumerate(samples))))


def score_records(
    rows: Sequence[Mapping[str, Any]],
    metrics: Sequence[str | Metric] | None = None,
    judge: str = "local",
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    max_field_chars: int | None = DEFAULT_MAX_FIELD_CHARS,
) -> list[dict[str, MetricResult]]:
    """Each row's `MetricResult`s, in order, without a summary: what a worker scoring one partition of a
    distributed run returns (a row's scores depend on the row alone, so partitions scored apart score alike).
    Texts are cut to `max_field_chars` as `evaluate_dataset` cuts them (it adds the notes on the driver)."""
    selected = resolve_metrics(metrics)
    samples = [Sample.from_row(row, max_field_chars) for row in rows]
    return run_sync(score_samples(selected, make_judge(str(judge), llm, embedder), samples, None))


#: `aevaluate_dataset` from synchronous code (the app's stage step; users score through `ragtest.evaluate`).
evaluate_dataset = blocking(aevaluate_dataset)


def scored_frame(frame: pd.DataFrame, names: Sequence[str], results: Sequence[dict[str, MetricResult]]) -> pd.DataFrame:
    """The input columns plus a score column (object dtype: floats and None, never NaN) and a reason column."""
    out = frame.copy()
    for name in names:
        out[name] = pd.Series([r[name].value for r in results], index=frame.index, dtype=object)
        out[reason_column(name)] = pd.Series(
            [r[name].reason or ("scored" if r[name].scored else "no score") for r in results],
            index=frame.index,
            dtype=object,
        )
    return out


def with_mapped_ids(frame: pd.DataFrame, metrics: Sequence[Metric], samples: Sequence[Sample]) -> pd.DataFrame:
    """`mapped_context_ids` beside the scores when a retrieval metric ran: what ID-based metrics elsewhere read."""
    retrieval = next((m for m in metrics if isinstance(m, RetrievalMetric)), None)
    if retrieval is None:
        return frame
    frame[MAPPED_CONTEXT_IDS] = pd.Series([retrieval.mapped_ids(s) for s in samples], index=frame.index, dtype=object)
    return frame


def groups_of(samples: Sequence[Sample]) -> dict[str, Sequence[str | None]]:
    """The columns summaries break down by: question type, source document, hops (the number of gold contexts:
    2 or more for a multi-hop question), and persona, query style and length where the test set has them."""
    hops = [str(n) if (n := len(s.reference_context_ids or s.reference_contexts or ())) else None for s in samples]
    columns = ("question_type", "source", "hops", "persona", "query_style", "query_length")
    return {name: hops if name == "hops" else [getattr(s, name) for s in samples] for name in columns}
