"""The end-to-end job: sources -> test set -> answers -> scores -> summary, manifest and report.

This is the only spine module that imports the stage packages. Each stage reads and writes files in the run
directory, so a run can stop after any stage and be resumed or re-scored later.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import evaluation
import rag_under_test
import testgen
from ragtest import dry_run
from ragtest.asyncio_utils import run_sync
from ragtest.config import RunConfig
from ragtest.datasets import read_dataset, read_jsonl, write_dataset
from ragtest.embeddings import Embedder, get_embedder
from ragtest.errors import LLMPermanentError, RagtestError
from ragtest.llm import LLMClient, LLMConfig, build_client
from ragtest.llm.progress import llm_progress
from ragtest.llm.usage import load_prices
from ragtest.manifest import write_json, write_manifest
from ragtest.report import write_report
from ragtest.schema import TestSample

TESTSET_FILE = "testset.jsonl"
ANSWERS_FILE = "answers.jsonl"
ANSWERS_PROGRESS_FILE = "answers.partial.jsonl"
SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"
STORE_DIR = "chroma"
CACHE_FILE = "llm_cache.sqlite"


@dataclass
class RunState:
    """What the stages of one run share: the config, the run directory, timings and the LLM client."""

    config: RunConfig
    run_dir: Path
    llm: LLMClient | None = None
    timings: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    show_progress: bool = True

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = round(self.timings.get(stage, 0.0) + time.perf_counter() - started, 3)

    @contextmanager
    def llm_stage(self, phase: str, expected_calls: int | None) -> Iterator[None]:
        """Usage recorded under `phase`, a bar of its LLM calls, and a permanent LLM error (bad key, unknown
        model) reported as itself, whatever the stage made of it (a writer that gave up, too few questions)."""
        if self.llm is None:
            yield
            return
        llm = self.llm
        with llm_progress(llm.usage, phase, expected_calls, enabled=self.show_progress):
            try:
                yield
            except LLMPermanentError:
                raise
            except Exception:
                if llm.fatal is not None:
                    raise LLMPermanentError(str(llm.fatal)) from None
                raise
        if llm.fatal is not None:
            raise LLMPermanentError(str(llm.fatal))


def open_run(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> RunState:
    """Create the run directory and the LLM client (None offline), with the cache in the run dir by default."""
    run_path = Path(run_dir)
    run_path.mkdir(parents=True, exist_ok=True)
    return RunState(config=config, run_dir=run_path, llm=make_llm(config, run_path), show_progress=show_progress)


def make_llm(config: RunConfig, run_dir: Path) -> LLMClient | None:
    settings = config.llm
    if not settings.configured:
        return None
    cache_path = None
    if settings.use_cache:
        cache_dir = settings.resolved_cache_dir()
        cache_path = Path(cache_dir).expanduser() / CACHE_FILE if cache_dir else run_dir / CACHE_FILE
    llm_config = LLMConfig(
        max_concurrency=settings.max_concurrency,
        adaptive=settings.adaptive,
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
        backoff_base_s=settings.backoff_s,
        requests_per_second=settings.requests_per_second,
        tokens_per_minute=settings.tokens_per_minute,
    )
    return build_client(
        settings.spec,
        settings.base_url,
        cache_path=cache_path,
        config=llm_config,
        prices=load_prices(settings.prices_file),
    )


def open_store(config: RunConfig, store_dir: Path, embedder: Embedder) -> testgen.ChunkStore:
    return testgen.ChunkStore(store_dir, embedder, url=config.store_url)


def load_documents(config: RunConfig) -> list[Any]:
    sources = config.sources
    if not sources.topic and not sources.source:
        raise RagtestError("nothing to build a test set from: pass --topic TITLE (Wikipedia) or --source PATH")
    documents: list[Any] = []
    if sources.topic:
        documents.extend(
            testgen.load_wikipedia(
                sources.topic,
                cache_dir=sources.resolved_cache(),
                timeout_s=sources.wiki_timeout_s,
                prefer_cache=True if sources.offline else None,
            )
        )
    if sources.source:
        documents.extend(testgen.load_files(sources.source))
    return documents


def generate_testset(state: RunState, output: Path | None = None, store_dir: Path | None = None) -> list[TestSample]:
    """Load, chunk, embed into the run's store, and write the test set."""
    config = state.config
    embedder = get_embedder(config.embedding_model)
    with state.timed("load_sources"):
        documents = load_documents(config)
    gen = config.generation
    with state.timed("chunk"):
        chunking = testgen.ChunkingConfig(
            chunk_size=gen.chunk_size, chunk_overlap=gen.chunk_overlap, separators=tuple(gen.separators)
        )
        chunks = testgen.chunk_documents(documents, chunking)
    with state.timed("embed"):
        store = open_store(config, store_dir or state.run_dir / STORE_DIR, embedder)
        embedded = store.add(chunks)
    state.stats["documents"] = len(documents)
    state.stats["chunks"] = len(chunks)
    state.stats["chunks_embedded"] = embedded
    writer: Any = (
        testgen.LLMWriter(state.llm, max_words=gen.max_question_words)
        if state.llm is not None
        else testgen.ExtractiveWriter(seed=gen.seed, max_words=gen.max_question_words)
    )
    generator = testgen.TestsetGenerator(
        store,
        writer,
        max_question_words=gen.max_question_words,
        question_types=gen.question_types,
        dedup_threshold=gen.dedup_threshold,
        max_copied_words=gen.max_copied_words,
        critic=gen.critic,
        strict_types=gen.strict_types,
    )
    expected = dry_run.generate_calls(gen.size, gen.questions_per_context, gen.question_types)
    with state.timed("generate"), state.llm_stage("generate", expected):
        samples = run_sync(
            generator.agenerate_size(
                gen.size,
                seed=gen.seed,
                k_neighbours=gen.k_neighbours,
                num_questions_per_context=gen.questions_per_context,
                show_progress=state.show_progress,
            )
        )
    state.stats["generation"] = generator.stats_dict()
    write_dataset([s.model_dump() for s in samples], output or state.run_dir / TESTSET_FILE)
    return samples


def reference_rag(state: RunState, store_dir: Path) -> rag_under_test.ReferenceRAG:
    embedder = get_embedder(state.config.embedding_model)
    store = open_store(state.config, store_dir, embedder)
    if store.count() == 0:
        raise RagtestError(f"the reference RAG needs the test set's vector store, but {store_dir} is empty")
    return rag_under_test.ReferenceRAG(StoreRetriever(store), k=state.config.rag_k, llm=state.llm, embedder=embedder)


class StoreRetriever:
    """The reference RAG's view of the test set's Chroma store."""

    def __init__(self, store: testgen.ChunkStore) -> None:
        self.store = store

    def retrieve(self, question: str, k: int) -> list[rag_under_test.Passage]:
        hits = self.store.query([question], k=k)[0]
        return [rag_under_test.Passage(id=hit.id, text=hit.text) for hit in hits]


def answer_testset(
    state: RunState,
    samples: list[dict[str, Any]],
    output: Path | None = None,
    store_dir: Path | None = None,
    adapter: Any = None,
) -> list[dict[str, Any]]:
    """Ask the RAG under test every question; rows are saved as they complete so a re-run resumes."""
    config = state.config
    if adapter is None and config.rag:
        adapter = rag_under_test.load_adapter(config.rag)
    elif adapter is None:
        adapter = reference_rag(state, store_dir or state.run_dir / STORE_DIR)
    progress = state.run_dir / ANSWERS_PROGRESS_FILE
    expected = len(samples) if isinstance(adapter, rag_under_test.ReferenceRAG) else None
    with state.timed("answer"), state.llm_stage("answer", expected):
        rows = run_sync(
            rag_under_test.answer_samples(
                samples,
                adapter,
                concurrency=config.rag_concurrency,
                timeout_s=config.rag_timeout_s,
                progress_path=progress,
                show_progress=state.show_progress,
            )
        )
    write_dataset(rows, output or state.run_dir / ANSWERS_FILE)
    progress.unlink(missing_ok=True)
    state.stats["answers"] = {"rows": len(rows), "errors": sum(1 for r in rows if r.get("answer_error"))}
    return rows


def evaluate_frame(state: RunState, frame: pd.DataFrame) -> evaluation.EvaluationResult:
    config = state.config
    judge = config.resolved_judge()
    expected = None
    if judge == "llm" and state.llm is not None:
        estimate = dry_run.RunEstimate()
        dry_run.estimate_evaluate(estimate, frame.to_dict(orient="records"), dry_run.metric_names(config))
        expected = estimate.phase_calls("evaluate")
    with state.timed("evaluate"), state.llm_stage("evaluate", expected):
        return evaluation.evaluate_dataset(
            frame,
            metrics=config.metrics,
            judge=judge,
            llm=state.llm,
            embedder=get_embedder(config.embedding_model),
            show_progress=state.show_progress,
        )


def evaluate_file(state: RunState, input_path: Path, output: Path) -> evaluation.EvaluationResult:
    """Score any dataset file (ragtest's or ragas' column names) and write the scored rows and summary."""
    result = evaluate_frame(state, read_dataset(input_path))
    write_dataset(result.frame, output)
    write_json(result.summary, output.with_name(output.stem + ".summary.json"))
    return result


def run(config: RunConfig, out_dir: str | Path, show_progress: bool = True) -> RunState:
    """generate -> answer -> evaluate into one run directory, with summary, manifest and report."""
    state = open_run(config, out_dir, show_progress=show_progress)
    started = time.perf_counter()
    samples = generate_testset(state)
    rows = answer_testset(state, [s.model_dump() for s in samples])
    result = evaluate_frame(state, pd.DataFrame(rows))
    write_dataset(result.frame, state.run_dir / SCORES_FILE)
    summary = {"metrics": result.summary, "rows": len(rows)}
    write_json(summary, state.run_dir / SUMMARY_FILE)
    state.timings["total"] = round(time.perf_counter() - started, 3)
    write_manifest(state)
    write_report(state.run_dir, result.frame, result.summary, state.stats, state.timings)
    return state


def read_testset(path: Path) -> list[dict[str, Any]]:
    if path.suffix.lower() == ".jsonl":
        return read_jsonl(path)
    return read_dataset(path).to_dict(orient="records")


def format_summary(summary: dict[str, Any]) -> str:
    """The per-metric summary as an aligned text table: mean, its 95% bootstrap interval, rows scored/failed."""
    lines = [f"{'metric':<22} {'mean':>6} {'95% CI':>16} {'scored':>7} {'failed':>7}"]
    for name, entry in summary.items():
        mean, low, high = entry.get("mean"), entry.get("ci_low"), entry.get("ci_high")
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else "-"
        lines.append(
            f"{name:<22} {'n/a' if mean is None else f'{mean:.3f}':>6} {interval:>16} "
            f"{entry.get('rows_scored', 0):>7} {entry.get('rows_failed', 0):>7}"
        )
    return "\n".join(lines)


def describe_run(state: RunState) -> str:
    """What a finished run wrote, its scores, time per stage and LLM usage."""
    summary = json.loads((state.run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    timings = ", ".join(f"{stage} {seconds:.1f}s" for stage, seconds in state.timings.items())
    lines = [
        f"run directory: {state.run_dir}",
        f"questions: {summary['rows']}  (test set {TESTSET_FILE}, answers {ANSWERS_FILE}, scores {SCORES_FILE})",
        format_summary(summary["metrics"]),
        f"time: {timings}",
        f"report: {state.run_dir / 'report.md'} and report.html",
    ]
    if state.llm is not None:
        lines.append(state.llm.usage.report())
    return "\n".join(lines)


def dry_run_report(config: RunConfig, command: str, input_path: str | None = None) -> str:
    """What `--dry-run` prints: the estimated LLM calls, tokens and cost of the command (nothing is sent)."""
    if not config.llm.configured:
        return "dry run: no LLM configured (--llm / --llm-base-url): this command makes no LLM call"
    if command == "evaluate" and input_path:
        estimate = dry_run.RunEstimate()
        if config.resolved_judge() == "llm":
            rows = read_dataset(Path(input_path)).to_dict(orient="records")
            dry_run.estimate_evaluate(estimate, rows, dry_run.metric_names(config))
    elif command == "answer" and input_path:
        estimate = dry_run.RunEstimate()
        rows = read_testset(Path(input_path))
        if not config.rag:
            dry_run.estimate_answer_rows(estimate, rows, config.rag_k)
    else:
        estimate = dry_run.estimate_run(config, phases=("generate",) if command == "generate" else None)
    usage = build_client_usage(config)
    return estimate.report(usage)


def build_client_usage(config: RunConfig) -> Any:
    from ragtest.llm.spec import model_identity
    from ragtest.llm.usage import UsageTracker

    model_id = model_identity(config.llm.spec, config.llm.base_url)
    return UsageTracker(model_id, prices=load_prices(config.llm.prices_file))
