"""The scoring engine: every selected metric on every row, concurrently, then a summary per metric.

The local judge embeds all texts of the run in one batch before scoring (speed only: a row's scores depend on
nothing but the row, the judge's settings and the models; no statistic is taken over the batch). The LLM judge
scores every row and metric at once: all their calls wait in the client's one queue (`LLMClient`: the in-flight
limit stays full), ordered by row (`CALL_ORDER`), with calls that others wait for first; the only waits are a
call's own data dependencies, and CPU work (embedding) runs in the judge's worker thread, so the event loop that
reads replies and sends the next calls is never held up. Nothing is written to disk here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd
from tqdm.auto import tqdm

from evaluation.centring import embed_in_batches
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Judge, Metric
from evaluation.metrics.retrieval import RetrievalMetric
from evaluation.registry import ALL, resolve_metrics
from evaluation.sample import Sample
from evaluation.stats import summarise
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import records
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.errors import MissingColumnsError, RagtestError
from ragtest_core.llm.limits import CALL_ORDER
from ragtest_core.relevance import load_centring_mean
from ragtest_core.schema import MAPPED_CONTEXT_IDS, MetricResult, reason_column

if TYPE_CHECKING:  # annotations only: the client module imports LangChain's chat models (seconds)
    from ragtest_core.llm.client import LLMClient

JudgeName = Literal["local", "llm"]


@dataclass
class EvaluationResult:
    """The scored dataset, its summary, and each row's full `MetricResult`s (with the judges' details)."""

    frame: pd.DataFrame
    summary: dict[str, dict[str, Any]]
    results: list[dict[str, MetricResult]] = field(default_factory=list)
    judge: str = "local"
    #: Metrics "all" selected but the dataset cannot feed, with the columns they lack.
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def metric_names(self) -> list[str]:
        return list(self.summary)


def feedable(frame: pd.DataFrame, metrics: Sequence[Metric]) -> tuple[list[Metric], dict[str, str]]:
    """(the metrics whose columns the frame has, the others with what they lack): what "all" scores."""
    columns = set(map(str, frame.columns))
    missing = {m.name: ", ".join(lack) for m in metrics if (lack := m.missing_columns(columns))}
    return [m for m in metrics if m.name not in missing], missing


def check_columns(frame: pd.DataFrame, metrics: Sequence[Metric]) -> None:
    """Raise `MissingColumnsError` naming every column any selected metric needs and the frame lacks."""
    columns = set(map(str, frame.columns))
    problems = [f"{m.name} needs {', '.join(missing)}" for m in metrics if (missing := m.missing_columns(columns))]
    if problems:
        raise MissingColumnsError(f"{'; '.join(problems)}; the dataset has: {', '.join(map(str, frame.columns))}")


def make_judge(judge: str, llm: LLMClient | None, embedder: Embedder | None) -> Judge:
    embedder = embedder or get_embedder()
    if judge == "local":
        return LocalJudge(embedder)
    if judge == "llm":
        if llm is None:
            raise RagtestError("judge='llm' needs an LLM client (pass llm=..., or use judge='local' offline)")
        return LLMJudge(llm=llm, embedder=embedder, reference_mean=load_centring_mean())
    raise RagtestError(f"unknown judge {judge!r}; use 'local' or 'llm'")


def prepare_local(judge: LocalJudge, metrics: Sequence[Metric], samples: Sequence[Sample]) -> None:
    """Embed every text the local judge will compare, for all rows, in one batched call."""
    texts: list[str] = []
    for sample in samples:
        for metric in metrics:
            texts.extend(texts_to_embed(metric, sample, judge))
    embed_in_batches(judge.embedder, texts)


def texts_to_embed(metric: Metric, sample: Sample, judge: LocalJudge) -> list[str]:
    """The texts `metric` will embed for `sample`; none when no judge is needed (or the metric fails here:
    scoring reports that failure on the row)."""
    try:
        if metric.rag_failure(sample) is not None or metric.precheck(sample) is not None:
            return []
        return metric.local_texts(sample, judge)
    except Exception:
        return []


async def aevaluate_dataset(
    frame: pd.DataFrame,
    metrics: Sequence[str | Metric] | None = None,
    judge: JudgeName | str = "local",
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    show_progress: bool = True,
    retrieval_k: int | None = None,
) -> EvaluationResult:
    """Score `frame` with `metrics` (default: the five RAGAS metrics). See `evaluate_dataset`."""
    selected = resolve_metrics(metrics, retrieval_k)
    skipped: dict[str, str] = {}
    if metrics is not None and ALL in ([metrics] if isinstance(metrics, str) else list(metrics)):
        selected, skipped = feedable(frame, selected)
    check_columns(frame, selected)
    active = make_judge(judge, llm, embedder)
    samples = [Sample.from_row(row) for row in records(frame)]
    if isinstance(active, LocalJudge):
        prepare_local(active, selected, samples)
    try:
        results = await score_rows(selected, active, samples, f"scoring ({judge} judge)", show_progress)
    finally:
        if isinstance(active, LLMJudge):
            active.close()
    names = [m.name for m in selected]
    return EvaluationResult(
        frame=with_mapped_ids(scored_frame(frame, names, results), selected, samples),
        summary=summarise(names, results, groups=groups_of(samples)),
        results=results,
        judge=str(judge),
        skipped=skipped,
    )


async def score_rows(
    metrics: Sequence[Metric], judge: Judge, samples: Sequence[Sample], desc: str, show_progress: bool
) -> list[dict[str, MetricResult]]:
    """Every metric on every row, all at once; a row's calls carry its index, so earlier rows finish first."""
    with tqdm(total=len(samples), desc=desc, unit="row", disable=not show_progress) as bar:

        async def score_row(index: int, sample: Sample) -> dict[str, MetricResult]:
            CALL_ORDER.set(index)
            scored = await asyncio.gather(*(m.ascore(sample, judge) for m in metrics))
            bar.update(1)
            return {m.name: r for m, r in zip(metrics, scored, strict=True)}

        results = await asyncio.gather(*(score_row(i, s) for i, s in enumerate(samples)))
    return list(results)


def evaluate_dataset(
    frame: pd.DataFrame,
    metrics: Sequence[str | Metric] | None = None,
    judge: JudgeName | str = "local",
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    show_progress: bool = True,
    retrieval_k: int | None = None,
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
    """
    return run_sync(aevaluate_dataset(frame, metrics, judge, llm, embedder, show_progress, retrieval_k))


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
    mapped = [retrieval.mapped_ids(sample) for sample in samples]
    frame[MAPPED_CONTEXT_IDS] = pd.Series(mapped, index=frame.index, dtype=object)
    return frame


def groups_of(samples: Sequence[Sample]) -> dict[str, Sequence[str | None]]:
    """The columns summaries break down by: question type and source document."""
    return {"question_type": [s.question_type for s in samples], "source": [s.source for s in samples]}
