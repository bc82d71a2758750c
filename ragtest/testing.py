"""Helpers for teams that test their RAG in pytest: fail a test on a significant regression or a low score.

    from ragtest.testing import assert_no_regression

    def test_no_regression(tmp_path):
        ...  # answer and score the test set into tmp_path
        assert_no_regression("tests/baseline", tmp_path, fail_if="faithfulness<-0.02,context_recall<-0.05")

The rules are those of `ragtest compare --fail-if` and `ragtest evaluate --fail-under` (`ragtest.gates`): a rule
fails only when the 95% interval says the shortfall is real.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragtest.compare_report import compare, format_comparison
from ragtest.comparison import Comparison
from ragtest.gates import check_fail_if, check_fail_under, format_gate, parse_fail_if, parse_fail_under
from ragtest.outputs import locate_scored
from ragtest_core.errors import RagtestError

__all__ = ["assert_min_scores", "assert_no_regression"]


def assert_no_regression(
    base: str | Path, new: str | Path, fail_if: str, *, allow_different: bool = False, seed: int = 0
) -> Comparison:
    """Compare two scored runs and raise AssertionError (with the comparison table) when a `fail_if` rule fails,
    e.g. fail_if="faithfulness<-0.02". Runs that cannot be compared raise `RagtestError`. Returns the comparison."""
    comparison = compare(base, new, allow_different=allow_different, seed=seed)
    results = check_fail_if(comparison, parse_fail_if(fail_if))
    if not all(r.passed for r in results):
        raise AssertionError(f"{format_gate(results)}\n{format_comparison(comparison)}")
    return comparison


def assert_min_scores(run: str | Path, fail_under: str) -> None:
    """Raise AssertionError when a mean of a scored run (a run directory, or a scored file with its summary
    beside it) is significantly below its floor, e.g. fail_under="faithfulness=0.8,context_recall=0.7"."""
    summary_path = locate_scored(run).summary
    if not summary_path.is_file():
        raise RagtestError(f"no summary at {summary_path}: score the run with ragtest first")
    document = json.loads(summary_path.read_text(encoding="utf-8"))
    results = check_fail_under(document.get("metrics") or {}, parse_fail_under(fail_under))
    if not all(r.passed for r in results):
        raise AssertionError(format_gate(results))
