"""Checked by mypy (`make check`), never run: the public API reaches type checkers with real types, not Any."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import assert_type

import pandas as pd

import ragtest
from evaluation import EvaluationResult
from ragtest import RAGAnswer, RunConfig
from ragtest.comparison import Comparison
from ragtest.run_state import RunState


def check_public_api(config: RunConfig, frame: pd.DataFrame) -> None:
    assert_type(ragtest.make_config(topic="Brown bear", size=5), RunConfig)
    assert_type(ragtest.generate(config, "runs/x"), pd.DataFrame)
    assert_type(ragtest.answer(frame, config, Path("runs/x")), pd.DataFrame)
    assert_type(ragtest.evaluate(frame, config), EvaluationResult)
    assert_type(ragtest.run(config, "runs/x"), RunState)
    assert_type(ragtest.compare("runs/a", Path("runs/b"), out_dir="runs/cmp"), Comparison)
    assert_type(RAGAnswer(answer="a", contexts=["c"]), RAGAnswer)
    make: Callable[..., RunConfig] = ragtest.make_config
    assert make is not None
