"""One dataset row as the metrics see it: clean strings, a tuple of non-empty contexts, None for missing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ragtest_core.datasets import as_str_list, join_if_list
from ragtest_core.schema import (
    ANSWER,
    ANSWER_ERROR,
    CONTEXT_IDS,
    CONTEXTS,
    GROUND_TRUTH,
    QUESTION,
    QUESTION_TYPE,
    REFERENCE_CONTEXT_IDS,
    REFERENCE_CONTEXTS,
    SOURCE,
)


def clean_text(value: Any) -> str | None:
    """A stripped string, or None for a missing value (None, NaN, pandas NA, empty or blank text)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    text = str(join_if_list(value)).strip()
    return text or None


@dataclass(frozen=True)
class Sample:
    """The fields a metric may read. Absent or blank values are None; contexts keep their rank order."""

    question: str | None = None
    answer: str | None = None
    contexts: tuple[str, ...] = ()
    ground_truth: str | None = None
    answer_error: str | None = None
    #: Retrieved context ids in rank order (as given: duplicates kept) and the gold ids; None when absent.
    context_ids: tuple[str, ...] | None = None
    reference_context_ids: tuple[str, ...] | None = None
    reference_contexts: tuple[str, ...] = ()
    question_type: str | None = None
    source: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Sample:
        contexts = tuple(c.strip() for c in as_str_list(row.get(CONTEXTS)) if c and c.strip())
        return cls(
            question=clean_text(row.get(QUESTION)),
            answer=clean_text(row.get(ANSWER)),
            contexts=contexts,
            ground_truth=clean_text(row.get(GROUND_TRUTH)),
            answer_error=clean_text(row.get(ANSWER_ERROR)),
            context_ids=id_tuple(row, CONTEXT_IDS),
            reference_context_ids=id_tuple(row, REFERENCE_CONTEXT_IDS),
            reference_contexts=tuple(c.strip() for c in as_str_list(row.get(REFERENCE_CONTEXTS)) if c and c.strip()),
            question_type=clean_text(row.get(QUESTION_TYPE)),
            source=clean_text(row.get(SOURCE)),
        )


def id_tuple(row: Mapping[str, Any], column: str) -> tuple[str, ...] | None:
    """The ids in `column` as stripped strings (blank ones dropped); None when the row has no such value."""
    if column not in row:
        return None
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return tuple(i.strip() for i in as_str_list(value) if i and i.strip())
