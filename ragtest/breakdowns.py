"""The report's breakdown tables, kept short: one row per group (question type, source) and one column per metric,
groups with too few rows to say anything pooled into one "other" row, and every group in a table that folds away.

A group "says something" from `min_group_rows()` rows on: the fewest rows at which even a group whose every row
scored 0 has a 95% interval (`evaluation.intervals`) that stays below 0.5. A smaller group's interval reaches past
the middle of the scale whatever its scores, so its own line would only add noise; pooled with the other small
groups it still counts.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from statistics import NormalDist
from typing import Generic, TypeVar

import numpy as np
import pandas as pd

from evaluation.intervals import CONFIDENCE_LEVEL, Interval, mean_cis
from ragtest.report_rows import scores
from ragtest_core.datasets import as_str_list, cell_text
from ragtest_core.schema import HOPS, QUERY_STYLE, REFERENCE_CONTEXT_IDS

CellT = TypeVar("CellT")
#: Upper bound for `min_group_rows` (it is 4 under the 95% rule).
_MOST_ROWS = 50


@cache
def min_group_rows() -> int:
    """The fewest rows whose 95% interval, with every row at 0, stays below 0.5 (4 at 95%). Rows of 0s take the
    interval rule's Wilson bound, z^2 / (n + z^2), below 0.5 from n > z^2 on: worked out with the standard library,
    so that a report needs no scipy.stats (a second of start-up) for it."""
    z = NormalDist().inv_cdf(0.5 + CONFIDENCE_LEVEL / 2)
    return min(_MOST_ROWS, max(2, math.floor(z * z) + 1))


@dataclass(frozen=True)
class Cell:
    """One metric on one group: mean, 95% interval, rows scored and failed."""

    mean: float | None
    low: float | None
    high: float | None
    scored: int
    failed: int


@dataclass
class GroupRow(Generic[CellT]):
    """One line of a breakdown table (the run's or compare's): a group (or several small ones pooled) and its cell
    per metric."""

    label: str
    title: str
    rows: int
    pooled: int = 0
    cells: dict[str, CellT] = field(default_factory=dict)


@dataclass
class Breakdown:
    """A breakdown table, short (small groups pooled) and full (every group)."""

    title: str
    metrics: list[str]
    short: list[GroupRow[Cell]]
    full: list[GroupRow[Cell]]
    #: The group the others are read against (query styles: "perfect", the questions as written), if any.
    baseline: str | None = None

    @property
    def folded(self) -> bool:
        """True when the full table says more than the short one."""
        return len(self.full) > len(self.short) or any(row.pooled for row in self.short)

    def shift(self, row: GroupRow[Cell], metric: str) -> float | None:
        """How far the row's mean lies from the baseline group's (None for the baseline itself or without one)."""
        base = next((r for r in self.full if r.title == self.baseline), None)
        if base is None or row is base or row.title == self.baseline:
            return None
        mean, reference = row.cells[metric].mean, base.cells[metric].mean
        return None if mean is None or reference is None else mean - reference


def short_labels(labels: Sequence[str]) -> dict[str, str]:
    """Labels that are paths with a common folder, shown without it ('../data/wiki/Polar_bear.txt' -> 'Polar_bear.txt'
    when every label lies under '../data/wiki/')."""
    paths = [label for label in labels if "/" in label]
    if len(paths) != len(labels) or len(labels) < 2:
        return {label: label for label in labels}
    parts = [label.split("/") for label in labels]
    shared = len(os.path.commonprefix([folders[:-1] for folders in parts]))  # noqa: RUF071 (lists of folder names)
    return {label: "/".join(folders[shared:]) for label, folders in zip(labels, parts, strict=True)}


def plan_groups(counts: Counter[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """How each group is shown (`short_labels`), the groups largest first, and the small ones pooled into one "other"
    line: those under `min_group_rows()` rows, when there are at least two of them."""
    shown = short_labels(sorted(counts))
    ordered = sorted(counts, key=lambda label: (-counts[label], shown[label]))
    small = [label for label in ordered if counts[label] < min_group_rows()]
    return shown, ordered, small if len(small) >= 2 else []


def _cells(frame: pd.DataFrame, metrics: Sequence[str], groups: Sequence[Sequence[int]]) -> list[dict[str, Cell]]:
    """Each group's cell per metric (intervals computed in batches)."""
    columns = {metric: scores(frame, metric).to_numpy(dtype=float) for metric in metrics}
    samples, keys = [], []
    for g, positions in enumerate(groups):
        for metric in metrics:
            values = columns[metric][list(positions)]
            samples.append(values[~np.isnan(values)].tolist())
            keys.append((g, metric, int(np.isnan(values).sum())))
    intervals: list[Interval] = mean_cis(samples)
    cells: list[dict[str, Cell]] = [{} for _ in groups]
    for (g, metric, failed), values, interval in zip(keys, samples, intervals, strict=True):
        mean = float(np.mean(values)) if values else None
        cells[g][metric] = Cell(mean, interval.low, interval.high, len(values), failed)
    return cells


def breakdown(frame: pd.DataFrame, metrics: Sequence[str], column: str, title: str, plural: str) -> Breakdown | None:
    """The breakdown of `metrics` by `column` (None when the column is missing or has a single label)."""
    if column not in frame.columns or not metrics:
        return None
    labels = [cell_text(v) or "(none)" for v in frame[column]]
    counts = Counter(labels)
    if len(counts) < 2:
        return None
    shown, full_labels, pooled = plan_groups(counts)
    members = {label: [i for i, value in enumerate(labels) if value == label] for label in full_labels}
    groups = [members[label] for label in full_labels]
    pooled_rows = sorted(i for label in pooled for i in members[label])
    cells = _cells(frame, metrics, [*groups, pooled_rows] if pooled_rows else groups)
    full = [
        GroupRow(shown[label], label, counts[label], 0, cell)
        for label, cell in zip(full_labels, cells[: len(groups)], strict=True)
    ]
    short = [row for row in full if row.title not in pooled]
    if pooled_rows:
        short.append(
            GroupRow(f"{len(pooled)} other {plural}", "; ".join(pooled), len(pooled_rows), len(pooled), cells[-1])
        )
    return Breakdown(title, list(metrics), short, full)


def hops_breakdown(frame: pd.DataFrame, metrics: Sequence[str]) -> Breakdown | None:
    """The breakdown by hops: each row's number of gold contexts (2 or more for a multi-hop question)."""
    if REFERENCE_CONTEXT_IDS not in frame.columns:
        return None
    labelled = frame.copy()
    labelled[HOPS] = [str(len(ids)) if (ids := as_str_list(value)) else None for value in frame[REFERENCE_CONTEXT_IDS]]
    return breakdown(labelled, metrics, HOPS, "hops (gold contexts)", "hop counts")


def style_breakdown(frame: pd.DataFrame, metrics: Sequence[str]) -> Breakdown | None:
    """The breakdown by query style (`testgen.styles`), each style read against "perfect" when the set has it: how
    each score moves when users type badly (other questions in each style, so the shift is no paired difference)."""
    table = breakdown(frame, metrics, QUERY_STYLE, "query style", "query styles")
    if table is not None and any(row.title == "perfect" for row in table.full):
        table.baseline = "perfect"
    return table
