"""The rows a team should look at first, per metric, and how the report shows one row.

Which rows, by the metric's scale (`evaluation.metric`: a metric declares it; a metric the registry does not know is
binary when every score is 0 or 1, else graded):

- binary (hit_rate, exact_match, any metric whose scores are all 0 or 1): every miss (score 0), in test-set order;
- rank (mrr, ndcg): every row below the top value, misses (0) first, then hits lower down, lowest first;
- graded (faithfulness, recall, similarities): rows below the metric's median and below the top band
  (`TOP_VALUE - TOP_BAND`), lowest first.

A row at the metric's top value is never listed, and a graded row within `TOP_BAND` of it neither (0.96 of a
faithfulness that is 1.00 on most rows is not where a run fails). Rows whose metric failed have no score: the
scores table gives their reasons.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from evaluation.metric import BINARY, GRADED, RANK
from evaluation.metrics.gold_mapping import is_gold_label, map_by_text
from evaluation.registry import higher_is_better, metric_scale
from ragtest_core.datasets import as_str_list, cell_text
from ragtest_core.schema import (
    CANONICAL_QUESTION,
    CONTEXT_IDS,
    CONTEXTS,
    MAPPED_CONTEXT_IDS,
    QUERY_STYLE,
    QUESTION_TYPE,
    REFERENCE_CONTEXT_IDS,
    REFERENCE_CONTEXTS,
    SOURCE,
    reason_column,
)

#: Every metric's best score.
TOP_VALUE = 1.0
#: A graded score this close to the top value is at the top, and never listed as a row to look at.
TOP_BAND = 0.05
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


def turned(low: float | None, high: float | None) -> tuple[float | None, float | None]:
    """The interval [low, high] of a score as the interval of 1 - score."""
    return None if high is None else 1.0 - high, None if low is None else 1.0 - low


def scores(frame: pd.DataFrame, metric: str) -> pd.Series:
    """The metric's scores as floats (NaN where the metric failed), indexed by frame position."""
    if metric not in frame.columns:
        return pd.Series(dtype=float)
    return pd.Series(pd.to_numeric(frame[metric], errors="coerce").to_numpy(dtype=float))


def oriented(frame: pd.DataFrame, metric: str) -> pd.Series:
    """The metric's scores turned so that higher is better: 1 - score for a metric where lower is better
    (hallucination, noise sensitivity), so one rule picks the weak rows and spots of every metric."""
    column = scores(frame, metric)
    return column if higher_is_better(metric) else 1.0 - column


@dataclass(frozen=True)
class WeakRows:
    """One metric's rows to look at, weakest first (frame positions), and how they were chosen."""

    metric: str
    scale: str
    positions: tuple[int, ...]
    scored: int
    misses: int
    #: The median of the oriented scores (higher is better; see `oriented`).
    median: float | None
    higher_is_better: bool = True

    @property
    def count(self) -> int:
        return len(self.positions)

    def describe(self) -> str:
        """'14 misses', '14 misses, 11 lower hits', '12 rows below 0.71' or 'none'."""
        if not self.positions:
            return "none"
        if self.scale == BINARY:
            return _count(self.misses, "miss", "misses")
        if self.scale == RANK:
            lower = self.count - self.misses
            parts = [_count(self.misses, "miss", "misses")] if self.misses else []
            parts += [_count(lower, "lower hit", "lower hits")] if lower else []
            return ", ".join(parts)
        side = "below" if self.higher_is_better else "above"
        return f"{_count(self.count, 'row', 'rows')} {side} {self._shown(self.line):.2f}"

    def line_note(self) -> str:
        """Where the line in `describe` comes from, in a few words: "0.19 = this run's median"."""
        if not self.positions:
            return ""
        if self.scale == BINARY:
            return f"score {0 if self.higher_is_better else 1} = a miss"
        if self.scale == RANK:
            return "0 = a miss; below 1 = found below rank 1"
        median = self.median or 0.0
        if median < TOP_VALUE - TOP_BAND:
            return f"{self._shown(self.line):.2f} = this run's median"
        side = "under" if self.higher_is_better else "over"
        best = self._shown(TOP_VALUE)
        return (
            f"the median {self._shown(median):.2f} is within {TOP_BAND:.2f} of the best score {best:.0f}: "
            f"the line sits {TOP_BAND:.2f} {side} it"
        )

    def _shown(self, oriented_value: float) -> float:
        """An oriented value (higher is better) as the metric reads it."""
        return oriented_value if self.higher_is_better else 1.0 - oriented_value

    @property
    def line(self) -> float:
        """A graded metric's line: its median, or the top band's lower edge when that is lower."""
        return min(self.median if self.median is not None else 0.0, TOP_VALUE - TOP_BAND)

    def rule(self) -> str:
        """How the rows were chosen and ordered, in a few words."""
        if self.scale == BINARY:
            return f"rows scored {0 if self.higher_is_better else 1}, in test-set order"
        if self.scale == RANK:
            return "misses first, then hits below rank 1, lowest first"
        side, order = ("below", "lowest") if self.higher_is_better else ("above", "highest")
        median = f"{self._shown(self.median or 0.0):.2f}" + ("" if self.higher_is_better else " (lower is better)")
        if self.median is not None and self.median < TOP_VALUE - TOP_BAND:
            return f"{side} the median {median}, {order} first"
        return f"the median is {median}: rows {side} {self._shown(TOP_VALUE - TOP_BAND):.2f}, {order} first"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def weak_rows(frame: pd.DataFrame, metric: str) -> WeakRows:
    """The rows of `metric` to look at (see the module docstring)."""
    column = oriented(frame, metric)
    scored = column.dropna()
    values = scored.tolist()
    declared, binary = metric_scale(metric), bool(values) and all(v in (0.0, 1.0) for v in values)
    scale = declared if declared in (BINARY, RANK) else BINARY if binary else GRADED  # the module doc's rule
    median = float(np.median(values)) if values else None
    upward = higher_is_better(metric)
    chosen = WeakRows(metric, scale, (), len(values), int((scored == 0.0).sum()), median, upward)
    below = scored[scored < (chosen.line if scale == GRADED else TOP_VALUE)]
    ordered = below.sort_values(kind="stable")
    return replace(chosen, positions=tuple(int(i) for i in ordered.index))


def anchor(metric: str, position: int) -> str:
    """The HTML id of a row's card under a metric: 'hit_rate-row-12' (row numbers count from 1)."""
    return f"{_SLUG.sub('-', metric)}-row-{position + 1}"


def section_anchor(metric: str) -> str:
    return f"rows-{_SLUG.sub('-', metric)}"


def gold_marks(row: pd.Series) -> list[bool]:
    """For each retrieved context: is it one of the row's gold chunks? As the retrieval metrics mapped it
    (`mapped_context_ids`) when they ran, else by id when a retrieved id is a gold id, else by text (the same
    mapping)."""
    contexts = as_str_list(row.get(CONTEXTS))
    gold_ids = set(as_str_list(row.get(REFERENCE_CONTEXT_IDS)))
    for column in (MAPPED_CONTEXT_IDS, CONTEXT_IDS):
        ids = as_str_list(row.get(column))
        if len(ids) == len(contexts) and gold_ids & set(ids):
            return [i in gold_ids for i in ids]
    gold_texts = as_str_list(row.get(REFERENCE_CONTEXTS))
    if not contexts or not gold_texts:
        return [False] * len(contexts)
    return [is_gold_label(label) for label in map_by_text(contexts, gold_texts).retrieved]


#: Scores are shown with this many decimals: a row is listed as changed only when its two scores show differently
#: (0.998 -> 1.000 shows as 1.00 -> 1.00, and counts only in wins/losses).
SHOWN_DIGITS = 2


def shown_score(value: float) -> str:
    """A score as the reports show it: `SHOWN_DIGITS` decimals, with no minus sign on a zero ("-0.00" is 0.00)."""
    text = f"{value:.{SHOWN_DIGITS}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


#: A text longer than this is shown cut, with the count of what was left out (a 5 MB answer is not a 5 MB page).
SHOWN_CHARS = 4000


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """`text` as a report shows it: whole when short, else its start and how many characters were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit:,} more characters not shown]"


def row_view(
    frame: pd.DataFrame, position: int, metric: str, sources: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """One row as the report shows it: question, reference, answer, the judge's reason, the gold chunks and the
    retrieved contexts (each marked when it is a gold chunk); `sources` maps a source to the name shown."""
    row = frame.iloc[position]
    marks = gold_marks(row)
    retrieved = [
        {"rank": rank, "text": shown(text), "gold": gold}
        for rank, (text, gold) in enumerate(zip(as_str_list(row.get(CONTEXTS)), marks, strict=True), start=1)
    ]
    return {
        "number": position + 1,
        "anchor": anchor(metric, position),
        "score": float(row[metric]),
        "question": shown(cell_text(row.get("question"))),
        "ground_truth": shown(cell_text(row.get("ground_truth"))),
        "answer": shown(cell_text(row.get("answer"))),
        "reason": shown(cell_text(row.get(reason_column(metric)))),
        "question_type": cell_text(row.get(QUESTION_TYPE)),
        #: A styled question (`--query-styles`): its style, and the question as written.
        "query_style": cell_text(row.get(QUERY_STYLE)),
        "canonical": shown(cell_text(row.get(CANONICAL_QUESTION))),
        "source": (sources or {}).get(cell_text(row.get(SOURCE)), cell_text(row.get(SOURCE))),
        "gold": [shown(text) for text in as_str_list(row.get(REFERENCE_CONTEXTS))],
        "retrieved": retrieved,
        "gold_retrieved": any(marks),
    }
