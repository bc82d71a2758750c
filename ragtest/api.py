"""The small public Python API: the CLI's steps as functions that take and return pandas DataFrames."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

import evaluation
import rag_under_test
from ragtest import steps
from ragtest.compare_report import write_compare_report
from ragtest.comparison import Comparison
from ragtest.comparison import compare as comparison_of
from ragtest.config import GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.manifest import stage_manifest_path, write_manifest
from ragtest.outputs import OutputPaths, input_manifest, write_scored
from ragtest.run_state import ANSWERS_FILE, TESTSET_FILE, RunState, open_run
from ragtest_core.datasets import normalise_columns, read_dataset, read_rows, records
from ragtest_core.errors import RagtestError
from ragtest_core.llm import structured_output_mode

_GEN = GenerationConfig
_LLM = LLMSettings
_RUN = RunConfig
_SRC = SourceConfig


def make_config(
    topic: str | None = None,
    source: str | None = None,
    *,
    revision: str | int | None = None,
    topics_file: str | None = None,
    wiki_cache: str | None = None,
    wiki_timeout_s: float = _SRC.wiki_timeout_s,
    offline: bool = False,
    size: int = _GEN.size,
    seed: int = _GEN.seed,
    k_neighbours: int = _GEN.k_neighbours,
    questions_per_context: int | None = _GEN.questions_per_context,
    chunk_size: int = _GEN.chunk_size,
    chunk_overlap: int = _GEN.chunk_overlap,
    separators: tuple[str, ...] = _GEN.separators,
    max_question_words: int = _GEN.max_question_words,
    question_types: str | None = None,
    dedup_threshold: float = _GEN.dedup_threshold,
    max_copied_words: int = _GEN.max_copied_words,
    critic: str = _GEN.critic,
    strict_types: bool = False,
    llm: str | None = None,
    llm_base_url: str | None = None,
    llm_concurrency: int = _LLM.max_concurrency,
    llm_fixed_concurrency: bool = False,
    llm_timeout_s: float = _LLM.timeout_s,
    llm_rps: float | None = None,
    llm_tpm: float | None = None,
    llm_retries: int = _LLM.max_retries,
    llm_backoff_s: float = _LLM.backoff_base_s,
    llm_structured_output: str = _LLM.structured_output,
    use_cache: bool = True,
    cache_dir: str | None = None,
    prices_file: str | None = None,
    embedding_model: str = _RUN.embedding_model,
    store_url: str | None = None,
    rag: str | None = None,
    rag_args: Mapping[str, Any] | None = None,
    rag_k: int = _RUN.rag_k,
    rag_concurrency: int | None = _RUN.rag_concurrency,
    rag_timeout_s: float = _RUN.rag_timeout_s,
    metrics: list[str] | None = None,
    judge: str = _RUN.judge,
) -> RunConfig:
    """A RunConfig from keyword arguments named like the CLI flags (every flag has one); RagtestError naming the
    option when a setting cannot work (e.g. a chunk overlap not smaller than the chunk size)."""
    config = RunConfig(
        sources=SourceConfig(
            topic=topic,
            source=source,
            revision=str(revision) if revision is not None else None,
            topics_file=topics_file,
            wiki_cache=wiki_cache,
            wiki_timeout_s=wiki_timeout_s,
            offline=offline,
        ),
        generation=GenerationConfig(
            size=size,
            seed=seed,
            k_neighbours=k_neighbours,
            questions_per_context=questions_per_context,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            separators=tuple(separators),
            max_question_words=max_question_words,
            question_types=question_types,
            dedup_threshold=dedup_threshold,
            max_copied_words=max_copied_words,
            critic=critic,
            strict_types=strict_types,
        ),
        llm=LLMSettings(
            spec=llm,
            base_url=llm_base_url,
            max_concurrency=llm_concurrency,
            adaptive=not llm_fixed_concurrency,
            timeout_s=llm_timeout_s,
            requests_per_second=llm_rps,
            tokens_per_minute=llm_tpm,
            max_retries=llm_retries,
            backoff_base_s=llm_backoff_s,
            structured_output=structured_output_mode(llm_structured_output),
            use_cache=use_cache,
            cache_dir=cache_dir,
            prices_file=prices_file,
        ),
        embedding_model=embedding_model,
        store_url=store_url,
        rag=rag,
        rag_args=dict(rag_args or {}),
        rag_k=rag_k,
        rag_concurrency=rag_concurrency,
        rag_timeout_s=rag_timeout_s,
        metrics=metrics,
        judge=judge,
    )
    problems = config.generation.problems()
    if problems:
        raise RagtestError("invalid settings: " + "; ".join(problems))
    return config


def generate(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> pd.DataFrame:
    """Build the test set into `run_dir` (testset.jsonl plus the Chroma store) and return it."""
    state = open_run(config, run_dir, show_progress=show_progress)
    samples = steps.generate_testset(state)
    write_manifest(state, stage_manifest_path(state.run_dir / TESTSET_FILE))
    return pd.DataFrame([s.model_dump() for s in samples])


def answer(
    testset: pd.DataFrame | str | Path,
    config: RunConfig,
    run_dir: str | Path,
    adapter: rag_under_test.AnyAdapter | None = None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Run every question through `adapter` (any object with answer()/aanswer()), else config.rag, else the
    reference RAG on the run's store. Writes answers.jsonl and returns the answered rows."""
    state = open_run(config, run_dir, show_progress=show_progress)
    source = state.run_dir / TESTSET_FILE if isinstance(testset, pd.DataFrame) else Path(testset)
    steps.inherit_testset_facts(state, input_manifest(source))
    rows = records(testset) if isinstance(testset, pd.DataFrame) else read_rows(Path(testset))
    answered = steps.answer_testset(state, rows, adapter=adapter)
    write_manifest(state, stage_manifest_path(state.run_dir / ANSWERS_FILE))
    return pd.DataFrame(answered)


def evaluate(
    dataset: pd.DataFrame | str | Path,
    config: RunConfig | None = None,
    run_dir: str | Path | None = None,
    show_progress: bool = True,
    columns: str = "ragtest",
) -> evaluation.EvaluationResult:
    """Score a dataset (DataFrame or file; ragas' column names accepted). Returns an EvaluationResult with
    `.frame` (one score and one reason column per metric) and `.summary`. With `run_dir`, also writes
    scores.jsonl, summary.json, manifest.json, report.md and report.html there (`columns="ragas"`: the scored rows
    under ragas' column names)."""
    state = open_run(config or RunConfig(), run_dir if run_dir is not None else ".", show_progress=show_progress)
    frame = normalise_columns(dataset.copy()) if isinstance(dataset, pd.DataFrame) else read_dataset(dataset)
    result = steps.evaluate_frame(state, frame)
    if run_dir is not None:
        source = Path(run_dir) / ANSWERS_FILE if isinstance(dataset, pd.DataFrame) else Path(dataset)
        write_scored(state, result, OutputPaths.in_dir(run_dir), columns, inherited=input_manifest(source))
        write_manifest(state)
    return result


def run(config: RunConfig, run_dir: str | Path, show_progress: bool = True, columns: str = "ragtest") -> RunState:
    """generate -> answer -> evaluate into one run directory, with summary, manifest and report."""
    return steps.run(config, run_dir, show_progress=show_progress, columns=columns)


def compare(
    base: str | Path,
    new: str | Path,
    *,
    allow_different: bool = False,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
    out_dir: str | Path | None = None,
) -> Comparison:
    """Compare two scored runs of one test set (run directories or scored files), metric by metric: both means,
    the paired change with its 95% interval, a paired permutation test, wins/losses/ties and a verdict, overall,
    by question type and by source; the rows that changed most. With `out_dir`, also writes compare.json,
    compare.md and compare.html there. Raises `IncomparableRunsError` (a RagtestError) when the test sets or the
    scoring settings differ, unless `allow_different=True`. Gate it with `ragtest.testing.assert_no_regression`
    or `ragtest.gates.check_fail_if`."""
    comparison = comparison_of(base, new, allow_different=allow_different, metrics=metrics, seed=seed)
    if out_dir is not None:
        write_compare_report(Path(out_dir), comparison)
    return comparison
