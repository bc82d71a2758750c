"""The small public Python API: the CLI's steps as functions that take and return pandas DataFrames."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ragtest import pipeline
from ragtest.config import GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.datasets import read_dataset


def make_config(
    topic: str | None = None,
    source: str | None = None,
    *,
    wiki_cache: str | None = None,
    offline: bool = False,
    size: int = 20,
    seed: int = 42,
    k_neighbours: int = 2,
    llm: str | None = None,
    llm_base_url: str | None = None,
    metrics: list[str] | None = None,
    judge: str = "auto",
    rag: str | None = None,
) -> RunConfig:
    """A RunConfig from keyword arguments named like the CLI flags."""
    return RunConfig(
        sources=SourceConfig(topic=topic, source=source, wiki_cache=wiki_cache, offline=offline),
        generation=GenerationConfig(size=size, seed=seed, k_neighbours=k_neighbours),
        llm=LLMSettings(spec=llm, base_url=llm_base_url),
        metrics=metrics,
        judge=judge,
        rag=rag,
    )


def generate(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> pd.DataFrame:
    """Build the test set into `run_dir` (testset.jsonl plus the Chroma store) and return it."""
    state = pipeline.open_run(config, run_dir, show_progress=show_progress)
    samples = pipeline.generate_testset(state)
    return pd.DataFrame([s.model_dump() for s in samples])


def answer(
    testset: pd.DataFrame | str | Path,
    config: RunConfig,
    run_dir: str | Path,
    adapter: Any = None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Run every question through `adapter` (any object with answer()/aanswer()), else config.rag, else the
    reference RAG on the run's store. Writes answers.jsonl and returns the answered rows."""
    state = pipeline.open_run(config, run_dir, show_progress=show_progress)
    rows = (
        testset.to_dict(orient="records") if isinstance(testset, pd.DataFrame) else pipeline.read_testset(Path(testset))
    )
    return pd.DataFrame(pipeline.answer_testset(state, rows, adapter=adapter))


def evaluate(
    dataset: pd.DataFrame | str | Path,
    config: RunConfig | None = None,
    run_dir: str | Path = ".",
    show_progress: bool = True,
) -> Any:
    """Score a dataset (DataFrame or file; ragas' column names accepted). Returns an EvaluationResult with
    `.frame` (one score and one reason column per metric) and `.summary`."""
    state = pipeline.open_run(config or RunConfig(), run_dir, show_progress=show_progress)
    frame = dataset if isinstance(dataset, pd.DataFrame) else read_dataset(dataset)
    return pipeline.evaluate_frame(state, frame)


def run(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> pipeline.RunState:
    """generate -> answer -> evaluate into one run directory, with summary, manifest and report."""
    return pipeline.run(config, run_dir, show_progress=show_progress)
