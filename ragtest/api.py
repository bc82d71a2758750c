"""The small public Python API: the CLI's steps as functions. `generate` returns a typed `TestSet`, `evaluate` a
typed `EvaluationReport`; `answer` returns the answered rows as a DataFrame."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from rag_under_test.adapter import AnyAdapter
from ragtest import steps
from ragtest.compare_report import compare as compare  # scored runs compared; `ragtest compare` without its gate
from ragtest.config import RunConfig
from ragtest.config.scope import check_given
from ragtest.manifest import stage_manifest_path, write_manifest
from ragtest.outputs import OutputPaths, input_manifest, write_scored
from ragtest.results import EvaluationReport, TestSet
from ragtest.run_state import ANSWERS_FILE, TESTSET_FILE, open_run
from ragtest.settings import config_factory
from ragtest.steps import run as run  # generate -> answer -> evaluate, as `ragtest run` does
from ragtest_core.datasets import normalise_columns, read_dataset, read_rows, records

if TYPE_CHECKING:
    from typing import Unpack

    from ragtest.config.keywords import ConfigKeywords

_MAKE_CONFIG = config_factory(RunConfig, positional=("topic", "source"))


def make_config(topic: str | None = None, source: str | None = None, **settings: Unpack[ConfigKeywords]) -> RunConfig:
    """A RunConfig from keyword arguments named like the CLI flags (`--chunk-size` is `chunk_size`, `--llm-timeout`
    is `llm_timeout`; `inspect.signature(make_config)` lists every one with its default, and type checkers see
    each one's type). None means "not given".
    An unknown keyword is a TypeError naming the close ones; a setting that cannot work is a RagtestError naming the
    option (e.g. a chunk overlap not smaller than the chunk size). A setting that the run would not use is a
    RagtestError naming it and what would use it (`testset=` skips generation, so `chunk_size=` is refused and
    `rag_chunk_size=` named; `rag=` replaces the reference RAG, so `rag_k=` is refused)."""
    given = {"topic": topic, "source": source, **settings}
    check_given([keyword for keyword, value in given.items() if value is not None])
    return _MAKE_CONFIG(topic, source, **settings)


make_config.__signature__ = _MAKE_CONFIG.__signature__  # type: ignore[attr-defined]


def generate(config: RunConfig, run_dir: str | Path, show_progress: bool = True) -> TestSet:
    """Build the test set into `run_dir` (testset.jsonl, its manifest and the Chroma store) and return it."""
    with open_run(config, run_dir, show_progress=show_progress) as state:
        samples = steps.generate_testset(state)
        path = state.run_dir / TESTSET_FILE
        write_manifest(state, stage_manifest_path(path))
    return TestSet(samples=samples, path=path, manifest=input_manifest(path) or {})


def answer(
    testset: TestSet | pd.DataFrame | str | Path,
    config: RunConfig,
    run_dir: str | Path,
    adapter: AnyAdapter | None = None,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Run every question through `adapter` (any object with answer()/aanswer()), else config.rag, else the
    reference RAG on the test set's store: the one its manifest records (a test set a run copied from another keeps
    its origin's), else the one beside the file (a DataFrame: `run_dir`'s). A test set file that `ragtest review`
    reviewed is read from its reviewed copy (X.reviewed.jsonl: rejected questions left out, edits applied), with the
    manifest of the test set. Writes answers.jsonl and returns the rows."""
    if isinstance(testset, TestSet):
        rows, source = [sample.model_dump() for sample in testset.samples], testset.path
    elif isinstance(testset, pd.DataFrame):
        rows = records(normalise_columns(testset, source="the test set DataFrame"))
        source = Path(run_dir) / TESTSET_FILE
    else:
        source = steps.testset_to_answer(Path(testset))  # the reviewed copy, when `ragtest review` wrote one
        rows = read_rows(source, required=("question",))
    with open_run(config, run_dir, show_progress=show_progress) as state:
        store_dir = steps.inherit_testset(state, source)  # the store its manifest records, else the one beside it
        answered = steps.answer_testset(state, rows, store_dir=store_dir, adapter=adapter)
        write_manifest(state, stage_manifest_path(state.run_dir / ANSWERS_FILE))
    return pd.DataFrame(answered)


def evaluate(
    dataset: pd.DataFrame | str | Path,
    config: RunConfig | None = None,
    run_dir: str | Path | None = None,
    show_progress: bool = True,
    columns: str = "ragtest",
) -> EvaluationReport:
    """Score a dataset (DataFrame or file; ragas' column names accepted) with the metrics and judge of `config`.
    Returns an `EvaluationReport`: each metric's mean with its interval, coverage, prediction-powered mean (with
    `labels=`) and breakdowns; `to_pandas()` gives the rows with one score and one reason column per metric. With
    `run_dir`, also writes scores.jsonl, summary.json, manifest.json, report.md and report.html there
    (`columns="ragas"`: the scored rows under ragas' column names)."""
    if isinstance(dataset, pd.DataFrame):
        frame = normalise_columns(dataset, source="the DataFrame")
    else:
        frame = read_dataset(dataset)
    folder = run_dir if run_dir is not None else "."
    # an in-memory evaluate writes no file of a run (at most the LLM cache, which is safe to share): no lock
    with open_run(config or RunConfig(), folder, show_progress=show_progress, lock=run_dir is not None) as state:
        result = steps.evaluate_frame(state, frame)
        if run_dir is not None:
            source = Path(run_dir) / ANSWERS_FILE if isinstance(dataset, pd.DataFrame) else Path(dataset)
            write_scored(state, result, OutputPaths.in_dir(run_dir), columns, inherited=input_manifest(source))
            write_manifest(state)
    return EvaluationReport.of(result)
