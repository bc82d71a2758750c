"""Checked by mypy (`make check`), never run: the public API reaches type checkers with real types, not Any. Each
`type: ignore` marks a call mypy must refuse (warn_unused_ignores makes an accepted one an error)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import assert_type

import pandas as pd

import ragtest
from evaluation.intervals import Interval
from ragtest import Comparison, EvaluationReport, MetricSummary, RAGAnswer, RunConfig, TestSample, TestSet
from ragtest.run_state import RunState


def check_public_api(config: RunConfig, frame: pd.DataFrame) -> None:
    assert_type(ragtest.make_config(topic="Brown bear", size=5), RunConfig)
    assert_type(ragtest.make_config("Brown bear", critic="offline", metrics=["faithfulness"], rag_args={}), RunConfig)
    ragtest.make_config(chunk_sise=100)  # type: ignore[call-arg]
    ragtest.make_config(size="five")  # type: ignore[arg-type]
    ragtest.make_config(judge="oracle")  # type: ignore[arg-type]
    make: Callable[..., RunConfig] = ragtest.make_config
    assert make is not None

    testset = ragtest.generate(config, "runs/x")
    assert_type(testset, TestSet)
    assert_type(testset.samples[0], TestSample)
    assert_type(testset.to_pandas(), pd.DataFrame)
    assert_type(ragtest.answer(testset, config, Path("runs/x")), pd.DataFrame)
    assert_type(ragtest.answer(frame, config, Path("runs/x")), pd.DataFrame)

    report = ragtest.evaluate(frame, config)
    assert_type(report, EvaluationReport)
    summary = report.metrics["faithfulness"]
    assert_type(summary, MetricSummary)
    assert_type(summary.mean, float | None)
    assert_type(summary.interval, Interval)
    assert_type(summary.coverage, float)
    assert_type(summary.ppi_mean, float | None)
    assert_type(summary.by_question_type["simple"], MetricSummary)
    assert_type(report.to_pandas(), pd.DataFrame)

    assert_type(ragtest.run(config, "runs/x"), RunState)
    assert_type(ragtest.compare("runs/a", Path("runs/b"), out_dir="runs/cmp"), Comparison)
    assert_type(RAGAnswer(answer="a", contexts=["c"]), RAGAnswer)
