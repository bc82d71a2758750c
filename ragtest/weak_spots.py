"""Where a run is weakest: the groups of rows (a question type, a source, a question type within a source) that
score lower than the rest of the run on a metric, with enough rows to say so.

A group is a weak spot on a metric when it has at least `breakdowns.min_group_rows()` scored rows (4: fewer can say
nothing, and the breakdown tables pool them) and its 95% interval (`evaluation.intervals`, the rule of every
summary) lies wholly below the 95% interval of the run's other rows on that metric. One group weak on several
metrics (a source whose questions miss their gold chunk on hit_rate, mrr and ndcg) is one spot. Spots are ordered
by their largest gap (the other rows' mean minus the group's); a group inside a spot listed before it is left out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from evaluation.intervals import Interval, mean_cis
from evaluation.registry import higher_is_better
from ragtest.breakdowns import min_group_rows
from ragtest.report_rows import oriented, turned
from ragtest_core.datasets import cell_text
from ragtest_core.schema import QUESTION_TYPE, SOURCE

#: The most spots the report's first section lists.
SPOTS = 6
#: The groupings searched, as (name, columns).
GROUPINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("question type", (QUESTION_TYPE,)),
    ("source", (SOURCE,)),
    ("question type and source", (QUESTION_TYPE, SOURCE)),
)


@dataclass(frozen=True)
class Finding:
    """One metric on which a group scores below the rest of the run."""

    metric: str
    mean: float
    interval: Interval
    rest_mean: float
    rest_interval: Interval
    rest_rows: int

    higher_is_better: bool = True

    @property
    def gap(self) -> float:
        """How much worse the group is than the rest (positive), whichever way the metric points."""
        return (self.rest_mean - self.mean) * (1.0 if self.higher_is_better else -1.0)

    def turned(self) -> Finding:
        """A finding computed on 1 - score (a lower-is-better metric) stated on the metric's own scale."""
        mine, rest = (Interval(*turned(i.low, i.high), i.method) for i in (self.interval, self.rest_interval))
        mean, rest_mean = 1.0 - self.mean, 1.0 - self.rest_mean
        return replace(self, mean=mean, interval=mine, rest_mean=rest_mean, rest_interval=rest, higher_is_better=False)


@dataclass
class WeakSpot:
    """A group of rows and the metrics on which it is weaker than the rest of the run."""

    grouping: str
    labels: tuple[str, ...]
    positions: tuple[int, ...]
    findings: list[Finding] = field(default_factory=list)

    @property
    def gap(self) -> float:
        return max(f.gap for f in self.findings)


def groups(frame: pd.DataFrame) -> list[tuple[str, tuple[str, ...], tuple[int, ...]]]:
    """(grouping, labels, frame positions) of every group with a label, for groupings that split the run (a
    column with one label, or a pair whose columns do not both split it, is no comparison)."""
    splitting = {
        column
        for _, columns in GROUPINGS
        for column in columns
        if column in frame.columns and len({cell_text(v) for v in frame[column]} - {""}) > 1
    }
    found: list[tuple[str, tuple[str, ...], tuple[int, ...]]] = []
    for name, columns in GROUPINGS:
        if not set(columns) <= splitting:
            continue
        members: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for position, values in enumerate(zip(*(frame[c] for c in columns), strict=True)):
            labels = tuple(cell_text(v) for v in values)
            if all(labels):
                members[labels].append(position)
        found.extend((name, labels, tuple(rows)) for labels, rows in sorted(members.items()))
    return found


def _candidates(
    values: np.ndarray, found: Sequence[tuple[str, tuple[str, ...], tuple[int, ...]]]
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(group index, the group's scores, the other rows' scores) where the group's mean is below the rest's and
    both have enough rows to say so."""
    scored, least = ~np.isnan(values), min_group_rows()
    candidates = []
    for index, (_, _, positions) in enumerate(found):
        inside = np.zeros(values.size, dtype=bool)
        inside[list(positions)] = True
        mine, rest = values[inside & scored], values[~inside & scored]
        if mine.size >= least and rest.size >= least and mine.mean() < rest.mean():
            candidates.append((index, mine, rest))
    return candidates


def weak_spots(frame: pd.DataFrame, metrics: Sequence[str]) -> list[WeakSpot]:
    """The groups whose interval lies below the rest of the run's, largest gap first; a group that lies inside a
    group listed before it (a question type within a weak source, or the same rows under another name) is not
    listed again."""
    found = groups(frame)
    spots: dict[int, WeakSpot] = {}
    for metric in metrics:
        values = oriented(frame, metric).to_numpy(dtype=float)  # higher is better for every metric here
        if values.size == 0:
            continue
        candidates = _candidates(values, found)
        mine_ci = mean_cis([c[1].tolist() for c in candidates])
        pairs = zip(candidates, mine_ci, strict=True)
        below = [(c, ci) for c, ci in pairs if ci.high is not None and ci.high < c[2].mean()]
        rest_ci = mean_cis([c[2].tolist() for c, _ in below])
        for ((index, mine, rest), ci), other in zip(below, rest_ci, strict=True):
            if other.low is None or ci.high is None or ci.high >= other.low:
                continue
            grouping, labels, positions = found[index]
            spot = spots.setdefault(index, WeakSpot(grouping, labels, positions))
            finding = Finding(metric, float(mine.mean()), ci, float(rest.mean()), other, int(rest.size))
            spot.findings.append(finding if higher_is_better(metric) else finding.turned())
    listed: list[WeakSpot] = []
    for index in sorted(spots, key=lambda i: (-spots[i].gap, i)):
        spot = spots[index]
        if any(set(spot.positions) <= set(earlier.positions) for earlier in listed):
            continue  # inside a group already listed with at least this gap: that group says it
        spot.findings.sort(key=lambda f: -f.gap)
        listed.append(spot)
    return listed
