"""The stage steps of a run: generate the test set, answer it with the RAG under test, score it, and the whole
job (`run`) with its summary, manifest and report. Each step reads and writes files in the run directory."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

import rag_under_test
import testgen
import testgen.graph
import testgen.store
from evaluation.engine import EvaluationResult, RowScorer, evaluate_dataset
from rag_under_test.adapter import AnyAdapter
from rag_under_test.collect import answer_samples, default_concurrency
from rag_under_test.loader import load_adapter
from ragtest import dry_run, partial_testsets
from ragtest.config import RunConfig
from ragtest.documents import SourceRecord
from ragtest.ingest import ingest
from ragtest.manifest import STAGES_KEY, write_manifest
from ragtest.outputs import OutputPaths, attach_ppi, input_manifest, testset_identity, write_rows, write_scored
from ragtest.rag_index import TESTSET_STORE_KEY, TestsetStore, reference_rag
from ragtest.review.testset_review import reviewed_or_original
from ragtest.run_state import (
    ANSWERS_FILE,
    PARTIAL_SUFFIX,
    SCORES_PROGRESS_FILE,
    STORE_DIR,
    TESTSET_FILE,
    RunState,
    open_run,
)
from ragtest.settings import config_secrets, iter_settings, settings_record, to_flags
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.dataset_checks import RowChecker
from ragtest_core.datasets import read_rows, records, write_dataset
from ragtest_core.embeddings import get_embedder
from ragtest_core.errors import RagtestError
from ragtest_core.progress import Identity
from ragtest_core.redact import redact_text, redact_value, scrub
from ragtest_core.schema import TestSample

#: The reference RAG's time per question in batch mode: its answer comes back with the batch (the provider's window
#: is 24 hours).
BATCH_ANSWER_TIMEOUT_S = 2 * 86400.0


def make_writer(state: RunState) -> testgen.QuestionWriter:
    """The LLM question writer when an LLM is configured, else the offline extractive writer."""
    gen = state.config.generation
    if state.llm is not None:
        return testgen.LLMWriter(state.llm, max_words=gen.max_question_words)
    return testgen.ExtractiveWriter(seed=gen.seed, max_words=gen.max_question_words)


def generate_testset(state: RunState, output: Path | None = None, store_dir: Path | None = None) -> list[TestSample]:
    """Load, chunk, embed into this corpus's store collection, and write the test set (and its pinned topics)."""
    config = state.config
    mark_stage(state, "generate")
    embedder = get_embedder(config.embedding_model)
    corpus = ingest(state, store_dir or state.run_dir / STORE_DIR, embedder)
    store = corpus.store
    output = output or state.run_dir / TESTSET_FILE
    record_sources(state, corpus.sources, output)
    state.stats[TESTSET_STORE_KEY] = TestsetStore.of_run(state).record()
    state.stats.update(documents=corpus.documents, chunks=corpus.chunks, chunks_embedded=corpus.embedded)
    state.stats["embedding_cache"] = {
        "path": str(store.cache.path) if store.cache is not None else None,
        "vectors_reused": store.cache.reused if store.cache is not None else 0,
        "vectors_computed": store.cache.computed if store.cache is not None else corpus.embedded,
    }
    state.stats["store_collection"] = store.collection_name
    gen = config.generation
    with state.timed("corpus_graph"):
        graph = testgen.build_graph(store, state.run_dir / testgen.graph.GRAPH_FILE)
    state.stats["corpus_graph"] = graph.summary()
    generator = testgen.TestsetGenerator(store, make_writer(state), gen, graph=graph)
    expected = dry_run.generate_calls(gen.size, generator.questions_per_context, gen.question_types)
    prior = partial_testsets.prior_work(state, output, store)  # a partial set there is topped up
    try:
        with state.timed("generate"), state.llm_stage("generate", expected):
            # a short set is written and marked partial, then stops unless accepted
            samples = run_sync(generator.agenerate(show_progress=state.show_progress, prior=prior, allow_fewer=True))
    finally:  # a failed run keeps its candidates and rejections by reason for the manifest
        state.stats["generation"] = generator.stats.to_dict()
    state.stats["testset_seed"] = gen.seed
    partial_testsets.write_testset(state, generator, samples, output)
    return samples


def record_sources(state: RunState, sources: SourceRecord, output: Path) -> None:
    """The manifest's record of the corpus (revisions, text hashes, skipped files) and, for Wikipedia topics, a
    topics file pinning each page's revision plus the command that re-creates this test set from it."""
    state.stats["sources"] = list(sources.documents)
    state.stats["skipped_files"] = dict(sources.skipped)
    if sources.files:
        state.stats["files"] = dict(sources.files)
    pinned = sources.pinned_topics()
    if not pinned:
        return
    topics_path = output.with_name(f"{output.stem}.topics.txt")
    topics_path.write_text("\n".join(pinned) + "\n", encoding="utf-8")
    state.stats["topics_file"] = str(topics_path)
    state.stats["reproduce"] = reproduce_command(state.config, topics_path, output)
    if any("@" not in topic for topic in pinned):
        state.stats.setdefault("warnings", []).append(
            "some pages have no known revision (cached copies without one): the topics file cannot pin them"
        )


def reproduce_command(config: RunConfig, topics_path: Path, output: Path) -> str:
    """`ragtest generate` with the pinned topics file and every generation setting of this run (as declared)."""
    settings = list(iter_settings(RunConfig))
    generation = [s for s in settings if s.group == "generation"]
    kept = [s for s in settings if s.keyword in ("source", "wiki_cache", "llm", "llm_base_url")]
    flags = to_flags(config, [*kept, *generation], redacted=True)
    reproduced = output.with_name(f"{output.stem}.reproduced{output.suffix}")
    return shlex.join(["ragtest", "generate", "--topics", str(topics_path), *flags, "--output", str(reproduced)])


def inherit_testset(state: RunState, testset: Path, given: Path | None = None) -> Path:
    """Carry the test set's seed, generation stats and store (`ragtest.rag_index.TestsetStore`) from its manifest
    into this stage's stats, for the answers' manifest, a later report and the reference RAG. Returns the store
    folder: `given` (`answer --store`), else the one its manifest records, else the one beside the file; recorded,
    so that a copy of the test set (or a copy of that copy) still finds the store it was generated into."""
    before = (input_manifest(testset) or {}).get("stats") or {}
    for key in ("generation", "testset_seed", partial_testsets.PARTIAL_KEY):
        if key in before and key not in state.stats:
            state.stats[key] = before[key]
    if isinstance(before.get(TESTSET_STORE_KEY), dict) and TESTSET_STORE_KEY not in state.stats:
        state.stats[TESTSET_STORE_KEY] = TestsetStore.from_record(before[TESTSET_STORE_KEY]).record()
    record = state.stats.get(TESTSET_STORE_KEY)
    recorded = record.get("store_dir") if isinstance(record, dict) else None
    store_dir = given or (Path(recorded) if recorded else testset.parent / STORE_DIR)
    if isinstance(record, dict):  # the test set's copies keep pointing at the store it was generated into
        record["store_dir"] = str(store_dir.resolve())
    return store_dir


def mark_stage(state: RunState, stage: str) -> None:
    """Note that `stage` ran (the manifest records the settings of the stages that ran: `ragtest.manifest`)."""
    stages = state.stats.setdefault(STAGES_KEY, [])
    if stage not in stages:
        stages.append(stage)


def answer_testset(
    state: RunState,
    samples: list[dict[str, Any]],
    output: Path | None = None,
    store_dir: Path | None = None,
    adapter: AnyAdapter | None = None,
    columns: str = "ragtest",
) -> list[dict[str, Any]]:
    """Ask the RAG under test every question; rows are saved as they complete (`<output stem>.partial.jsonl`,
    under a record of the adapter and its arguments), so a re-run with the same RAG resumes, and a run with
    another one stops, naming the difference, instead of mixing two systems' answers."""
    config = state.config
    mark_stage(state, "answer")
    RowChecker("the test set", ("question",)).check_all(samples, [f"row {n}" for n in range(1, len(samples) + 1)])
    if not samples:
        raise RagtestError("the test set holds no rows: nothing to answer")
    if adapter is None and config.rag:
        adapter = load_adapter(config.rag, **config.rag_args)
    elif adapter is None:
        adapter = reference_rag(state, store_dir or state.run_dir / STORE_DIR, samples)
    concurrency = config.rag_concurrency or default_concurrency(adapter)
    timeout_s = config.rag_timeout_s
    if config.llm.batch and isinstance(adapter, rag_under_test.ReferenceRAG) and adapter.llm is not None:
        # batch mode: every question's answer call goes in one batch, answered within the batch window
        concurrency = config.rag_concurrency or max(1, len(samples))
        timeout_s = max(timeout_s, BATCH_ANSWER_TIMEOUT_S)
    description, identity = describe_adapter(config, adapter)
    state.stats["rag_adapter"] = f"{description}; {concurrency} question(s) at a time"
    output = output or state.run_dir / ANSWERS_FILE
    # rows saved as they complete, beside the output and named after it (answers.partial.jsonl): two outputs in one
    # folder never share one
    progress = output.with_name(f"{output.stem}{PARTIAL_SUFFIX}")
    expected = len(samples) if isinstance(adapter, rag_under_test.ReferenceRAG) else None
    secrets = config_secrets(config)
    with state.timed("answer"), state.llm_stage("answer", expected):
        rows = run_sync(
            answer_samples(
                samples,
                adapter,
                concurrency=concurrency,
                timeout_s=timeout_s,
                progress_path=progress,
                identity=identity,
                show_progress=state.show_progress,
                redact=lambda text: scrub(text, secrets),
            )
        )
    write_rows(rows, output, columns)
    progress.unlink(missing_ok=True)
    state.stats["answers"] = {
        "rows": len(rows),
        "errors": sum(1 for r in rows if r.get("answer_error")),
        "testset": testset_identity(pd.DataFrame(samples)),  # which test set was answered (as summary.json says it)
    }
    return rows


def describe_adapter(config: RunConfig, adapter: AnyAdapter) -> tuple[str, Identity]:
    """The RAG under test in words, for the manifest and the report, and what makes its answers: the adapter and its
    arguments (the reference RAG: its k, LLM, embedding model and, with an index of its own, that index's chunking).
    Credentials are shown redacted; their real values only enter the fingerprint."""
    if isinstance(adapter, rag_under_test.ReferenceRAG):
        llm = redact_text(str(config.llm.spec or config.llm.base_url))
        reader = f"LLM answers ({llm})" if adapter.llm else "extractive answers"
        source = getattr(adapter.retriever, "description", "the test set's store")
        written = settings_record(config)["llm"]  # credentials redacted
        shown: dict[str, Any] = {
            "adapter": "reference RAG",
            "rag_k": config.rag_k,
            "llm": written["spec"],
            "llm_base_url": written["base_url"],
            "embedding_model": adapter.embedder.model_name,
        }
        index = getattr(adapter.retriever, "index", None)
        if index:  # an index of its own (`ragtest.rag_index`): its chunking and model make other answers
            shown["index"] = index
        secret = {"llm_base_url": config.llm.base_url, "llm": config.llm.spec}
        return f"reference RAG (top-{adapter.k} retrieval from {source}, {reader})", Identity(shown, secret)
    if config.rag:
        args = ", ".join(f"{k}={v!r}" for k, v in redact_value(config.rag_args).items())
        shown = {"adapter": config.rag, "rag_args": redact_value(config.rag_args)}
        return f"{config.rag}({args})", Identity(shown, {"rag_args": config.rag_args})
    name = f"{type(adapter).__module__}.{type(adapter).__qualname__}"
    return name, Identity({"adapter": name}, {})


def evaluate_frame(state: RunState, frame: pd.DataFrame) -> EvaluationResult:
    """Score `frame` with the run's metrics and judge (the LLM judge's calls counted for the progress bar)."""
    config = state.config
    mark_stage(state, "evaluate")
    judge = config.resolved_judge()
    expected = dry_run.evaluate_calls(config, records(frame)) if judge == "llm" and state.llm is not None else None
    progress = state.run_dir / SCORES_PROGRESS_FILE
    scorer = distributed_scorer(state, judge, progress)
    with state.timed("evaluate"), state.llm_stage("evaluate", expected):
        result = evaluate_dataset(
            frame,
            metrics=config.metrics,
            judge=judge,
            llm=state.llm,
            embedder=get_embedder(config.embedding_model),
            show_progress=state.show_progress and scorer is None,  # the Ray scorer shows its own bar, per batch
            retrieval_k=config.retrieval_k,
            repeats=config.repeats,
            max_field_chars=config.max_field_chars,
            row_scorer=scorer,
        )
    progress.unlink(missing_ok=True)
    attach_ppi(state, result)
    if result.skipped:
        state.stats["metrics_skipped"] = dict(result.skipped)
        names = ", ".join(f"{name} (needs {lack})" for name, lack in result.skipped.items())
        print(f"ragtest: note: --metrics all left out what this dataset cannot feed: {names}", file=sys.stderr)
    return result


def distributed_scorer(state: RunState, judge: str, progress: Path) -> RowScorer | None:
    """Scoring on Ray with `--ray` (the LLM judge too, unless its calls go in provider batches or are repeated),
    else None."""
    config = state.config
    if config.ray_address is None or (judge == "llm" and config.llm.batch) or config.repeats > 1:
        return None
    from ragtest.distributed import ray_row_scorer  # only with --ray: it imports Ray

    return ray_row_scorer(state, progress)


def testset_to_answer(path: Path) -> Path:
    """The test set `answer` reads: the reviewed copy `ragtest review` wrote beside `path`, when there is one."""
    source = reviewed_or_original(path)
    if source != path:
        print(f"ragtest: using the reviewed test set {source} (rejected questions left out, edits applied)",
              file=sys.stderr)  # fmt: skip
    return source


def existing_testset(state: RunState, path: Path) -> tuple[list[dict[str, Any]], Path]:
    """`run --testset PATH`: the test set's rows (its reviewed copy when there is one), copied into the run
    directory as its test set, and its store (for the reference RAG): the one beside it, or, for a test set that
    a run copied from another, the store its manifest names."""
    if not path.is_file():
        raise RagtestError(f"--testset: not found: {path}")
    source = testset_to_answer(path)
    rows = read_rows(source, required=("question",))
    if not rows:
        raise RagtestError(f"--testset: {source} holds no questions")
    store_dir = inherit_testset(state, source)
    state.stats["testset_from"] = str(source)
    own = state.run_dir / TESTSET_FILE
    if own.resolve() not in (source.resolve(), path.resolve()):
        write_dataset(rows, own)
    return rows, store_dir


def run(config: RunConfig, run_dir: str | Path, show_progress: bool = True, columns: str = "ragtest") -> RunState:
    """generate -> answer -> evaluate into one run directory, with summary, manifest and report. The directory is
    locked for the whole run (`ragtest.run_lock`: a second run on it is refused) and released at the end."""
    with open_run(config, run_dir, show_progress=show_progress) as state:
        started = time.perf_counter()
        if config.testset:
            testset, store_dir = existing_testset(state, Path(config.testset))
            rows = answer_testset(state, testset, store_dir=store_dir, columns=columns)
        else:
            try:
                samples = generate_testset(state)
            except partial_testsets.ShortTestsetError as exc:  # the partial set is written: stop before answering
                manifest = write_manifest(state)
                raise partial_testsets.ShortTestsetError(f"{exc} (the run's manifest: {manifest})") from exc
            rows = answer_testset(state, [s.model_dump() for s in samples], columns=columns)
        result = evaluate_frame(state, pd.DataFrame(rows))
        state.timings["total"] = round(time.perf_counter() - started, 3)
        write_manifest(state)
        state.summary = write_scored(state, result, OutputPaths.in_dir(state.run_dir), columns)
    return state
