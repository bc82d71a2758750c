"""The small public Python API: the CLI's steps as functions that take and return pandas DataFrames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import evaluation
import rag_under_test
from ragtest import steps
from ragtest.config import GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.run_state import RunState, open_run
from ragtest_core.datasets import read_dataset, read_rows, records
from ragtest_core.llm import structured_output_mode

_GEN = GenerationConfig
_LLM = LLMSettings
_RUN = RunConfig
_SRC = SourceConfig


def make_config(
    topic: str | None = None,
    source: str | None = None,
    *,
    wiki_cache: str | None = None,
    wiki_timeout_s: float = _SRC.wiki_timeout_s,
    offline: bool = False,
    size: int = _GEN.size,
    seed: int = _GEN.seed,
    k_neighbours: int = _GEN.k_neighbours,
    questions_per_context: int = _GEN.questions_per_context,
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
    rag_k: int = _RUN.rag_k,
    rag_concurrency: int = _RUN.rag_concurrency,
    rag_timeout_s: float = _RUN.rag_timeout_s,
    metrics: list[str] | None = None,
    judge: str = _RUN.judge,
) -> RunConfig:
    """A RunConfig from keyword arguments named like the CLI flags (every flag has one)."""
    return RunConfig(
        sources=SourceConfig(
            topic=topic, source=source, wiki_cache=wiki_cache, wiki_timeout_s=wiki_timeout_s, offline=offline
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
        rag_k=rag_k,
        rag_concurrency=rag_concurrency,
        rag_timeout_s=rag_timeout_s,
        metrics=metrics,
        judge=judge,
    )


def generate(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> pd.DataFrame:
    """Build the test set into `run_dir` (testset.jsonl plus the Chroma store) and return it."""
    state = open_run(config, run_dir, show_progress=show_progress)
    samples = steps.generate_testset(state)
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
    rows = records(testset) if isinstance(testset, pd.DataFrame) else read_rows(Path(testset))
    return pd.DataFrame(steps.answer_testset(state, rows, adapter=adapter))


def evaluate(
    dataset: pd.DataFrame | str | Path,
    config: RunConfig | None = None,
    run_dir: str | Path = ".",
    show_progress: bool = True,
) -> evaluation.EvaluationResult:
    """Score a dataset (DataFrame or file; ragas' column names accepted). Returns an EvaluationResult with
    `.frame` (one score and one reason column per metric) and `.summary`."""
    state = open_run(config or RunConfig(), run_dir, show_progress=show_progress)
    frame = dataset if isinstance(dataset, pd.DataFrame) else read_dataset(dataset)
    return steps.evaluate_frame(state, frame)


def run(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> RunState:
    """generate -> answer -> evaluate into one run directory, with summary, manifest and report."""
    return steps.run(config, run_dir, show_progress=show_progress)
