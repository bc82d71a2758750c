"""One dataset row as the metrics see it: clean strings, a tuple of non-empty contexts, None for missing.

Each text is at most `max_chars` characters (`DEFAULT_MAX_FIELD_CHARS`, 100,000): a longer answer, question,
reference or context is cut to that length (at a word boundary) before any metric reads it, so the cost of
scoring a row is bounded whatever a RAG returns (a 5 MB answer scores in seconds), and `Sample.cut` records each
text cut with its full length, which the engine writes into the row's reasons and the summary."""

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
    PERSONA,
    QUERY_LENGTH,
    QUERY_STYLE,
    QUESTION,
    QUESTION_TYPE,
    REFERENCE_CONTEXT_IDS,
    REFERENCE_CONTEXTS,
    SOURCE,
)

#: Characters of one text a metric reads at most (the rest is cut off, and the row's reasons say so).
DEFAULT_MAX_FIELD_CHARS = 100_000


def clean_text(value: Any) -> str | None:
    """A stripped string, or None for a missing value (None, NaN, pandas NA, empty or blank text)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(join_if_list(value)).strip() or None


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
    #: Who asks and how the question is typed (testgen's `--personas`, `--query-styles`, `--query-lengths`).
    persona: str | None = None
    query_style: str | None = None
    query_length: str | None = None
    #: The texts cut to the size limit: (field, full length in characters), e.g. ("answer", 5242880).
    cut: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_row(cls, row: Mapping[str, Any], max_chars: int | None = DEFAULT_MAX_FIELD_CHARS) -> Sample:
        cuts: list[tuple[str, int]] = []

        def bounded(text: str | None, name: str) -> str | None:
            if text is None or max_chars is None or len(text) <= max_chars:
                return text
            cuts.append((name, len(text)))
            return cut_text(text, max_chars)

        def texts(column: str) -> tuple[str, ...]:
            found = [c.strip() for c in as_str_list(row.get(column)) if c and c.strip()]
            return tuple(str(bounded(c, f"{column}[{i}]")) for i, c in enumerate(found))

        return cls(
            question=bounded(clean_text(row.get(QUESTION)), QUESTION),
            answer=bounded(clean_text(row.get(ANSWER)), ANSWER),
            contexts=texts(CONTEXTS),
            ground_truth=bounded(clean_text(row.get(GROUND_TRUTH)), GROUND_TRUTH),
            context_ids=id_tuple(row, CONTEXT_IDS),
            reference_context_ids=id_tuple(row, REFERENCE_CONTEXT_IDS),
            reference_contexts=texts(REFERENCE_CONTEXTS),
            # the labels, each a plain text (the field is named as its column)
            **{
                name: clean_text(row.get(name))
                for name in (ANSWER_ERROR, QUESTION_TYPE, SOURCE, PERSONA, QUERY_STYLE, QUERY_LENGTH)
            },
            cut=tuple(cuts),
        )


def cut_text(text: str, limit: int) -> str:
    """`text`'s first `limit` characters, ending at the last whitespace when there is one in the last tenth."""
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"))
    return head[:space].rstrip() if space >= limit * 0.9 else head


def id_tuple(row: Mapping[str, Any], column: str) -> tuple[str, ...] | None:
    """The ids in `column` as stripped strings (blank ones dropped); None when the row has no such value."""
    value = row.get(column)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return tuple(i.strip() for i in as_str_list(value) if i and i.strip())
