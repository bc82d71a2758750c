"""One dataset row as the metrics see it: clean strings, a tuple of non-empty contexts, None for missing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pandas as pd

from ragtest.datasets import as_str_list, join_if_list
from ragtest.schema import ANSWER, ANSWER_ERROR, CONTEXTS, GROUND_TRUTH, QUESTION
from ragtest.text import split_sentences


@lru_cache(maxsize=65536)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(split_sentences(text))


def sentences_of(text: str) -> list[str]:
    """`ragtest.text.split_sentences`, memoised: metrics split the same contexts many times."""
    return list(_sentences(text))


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

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Sample:
        contexts = tuple(c.strip() for c in as_str_list(row.get(CONTEXTS)) if c and c.strip())
        return cls(
            question=clean_text(row.get(QUESTION)),
            answer=clean_text(row.get(ANSWER)),
            contexts=contexts,
            ground_truth=clean_text(row.get(GROUND_TRUTH)),
            answer_error=clean_text(row.get(ANSWER_ERROR)),
        )
