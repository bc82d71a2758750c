"""What the Python API returns: the test set `generate` wrote and the report `evaluate` scored, typed, each with
`to_pandas()` for its rows. The files on disk (testset.jsonl and its manifest, scores.jsonl and summary.json) hold
the same facts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from evaluation.engine import EvaluationResult
from evaluation.intervals import Interval
from ragtest_core.schema import TestSample


@dataclass(frozen=True)
class TestSet:
    """A generated test set: its rows, where it was written and the manifest written beside it (settings, sources,
    generation counts)."""

    __test__ = False  # not a pytest class

    samples: list[TestSample]
    path: Path
    manifest: dict[str, Any] = field(repr=False)

    def __len__(self) -> int:
        return len(self.samples)

    def to_pandas(self) -> pd.DataFrame:
        """One row per sample, the columns of testset.jsonl."""
        return pd.DataFrame([sample.model_dump() for sample in self.samples])


@dataclass(frozen=True)
class MetricSummary:
    """A metric's mean over the rows it scored, with its 95% interval (`interval.low`/`high` None below 2 scored
    rows) and how many rows that is; with human labels (`labels=`), the prediction-powered mean: the judge's mean
    corrected by the labels (`ppi_labels` of them), with its interval; and the same summary per question type and
    per source document."""

    mean: float | None
    interval: Interval
    rows_scored: int
    rows: int
    ppi_mean: float | None = None
    ppi_interval: Interval | None = None
    ppi_labels: int = 0
    by_question_type: dict[str, MetricSummary] = field(default_factory=dict, repr=False)
    by_source: dict[str, MetricSummary] = field(default_factory=dict, repr=False)

    @property
    def coverage(self) -> float:
        """The share of rows with a score (the others have a reason instead)."""
        return self.rows_scored / self.rows if self.rows else 0.0

    @classmethod
    def from_summary(cls, entry: Mapping[str, Any]) -> MetricSummary:
        """One metric's entry of summary.json (`evaluation.stats`, `ppi` from `ragtest.outputs.attach_ppi`), typed."""
        ppi = entry.get("ppi") or {}
        return cls(
            mean=entry.get("mean"),
            interval=Interval(entry.get("ci_low"), entry.get("ci_high"), str(entry.get("interval_method", ""))),
            rows_scored=int(entry.get("rows_scored", 0)),
            rows=int(entry.get("rows_scored", 0)) + int(entry.get("rows_failed", 0)),
            ppi_mean=ppi.get("mean"),
            ppi_interval=Interval(ppi.get("ci_low"), ppi.get("ci_high"), str(ppi.get("method", ""))) if ppi else None,
            ppi_labels=int(ppi.get("n_labels", 0)),
            by_question_type={k: cls.from_summary(v) for k, v in (entry.get("by_question_type") or {}).items()},
            by_source={k: cls.from_summary(v) for k, v in (entry.get("by_source") or {}).items()},
        )


@dataclass(frozen=True)
class EvaluationReport:
    """A scored dataset: each metric's summary, the judge that scored it, the metrics `metrics="all"` left out
    (with the columns they lack) and the scored rows (`to_pandas()`: the input columns, one score and one reason
    column per metric)."""

    metrics: dict[str, MetricSummary]
    judge: str
    skipped: dict[str, str]
    frame: pd.DataFrame = field(repr=False)

    @classmethod
    def of(cls, result: EvaluationResult) -> EvaluationReport:
        metrics = {name: MetricSummary.from_summary(entry) for name, entry in result.summary.items()}
        return cls(metrics=metrics, judge=result.judge, skipped=dict(result.skipped), frame=result.frame)

    def to_pandas(self) -> pd.DataFrame:
        return self.frame.copy()
