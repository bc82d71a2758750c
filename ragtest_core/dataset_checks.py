"""Checking a user's dataset at the boundary: every problem (bytes that are not UTF-8, JSON that does not parse, a
row that is not an object, a value of the wrong type: `RowChecker`) is one message naming the file, the line (or
row) and the column, and nothing is coerced silently. The one repair made, CSV cells holding Python lists
(`['a', 'b']`, what pandas' default `to_csv` writes) read as lists, is reported once per column
(`InputRepairWarning`).
"""

from __future__ import annotations

import ast
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragtest_core.errors import RagtestError
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, RAGAS_ALIASES, REFERENCE_CONTEXTS

#: Problems listed in one error at most (the rest are counted).
MAX_PROBLEMS = 20
#: Columns whose items must be texts (contexts are scored as text: an object's repr would be scored silently).
TEXT_LIST_COLUMNS = (CONTEXTS, REFERENCE_CONTEXTS)
#: Columns of ids: texts, or whole numbers (read as their digits).
ID_LIST_COLUMNS = ("context_ids", "reference_context_ids", "neighbour_ids")
#: Columns that hold one text (or nothing).
TEXT_COLUMNS = (ANSWER, "answer_span", "question_type", "source")
_ALIAS_OF = {ours: alias for alias, ours in RAGAS_ALIASES.items()}  # one alias each


class DatasetError(RagtestError):
    """A dataset file (or frame) a user gave cannot be read as it is; the message lists each problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        shown = list(problems[:MAX_PROBLEMS])
        more = len(problems) - len(shown)
        lines = shown + ([f"... and {more} more problem(s)"] if more > 0 else [])
        super().__init__(lines[0] if len(lines) == 1 else "the dataset has problems:\n  " + "\n  ".join(lines))
        self.problems = list(problems)


class InputRepairWarning(UserWarning):
    """A value of a user's dataset was repaired on reading (e.g. Python lists in a CSV read as lists)."""


def decode_utf8(data: bytes, source: str) -> str:
    """`data` as UTF-8 text (a BOM is dropped); bytes that are not UTF-8 raise `DatasetError` naming the line and
    column of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        raise DatasetError(
            [f"{source}:{line}:{column}: not UTF-8 (byte 0x{bad}); save the file as UTF-8 and try again"]
        ) from None


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def kind_of(value: Any) -> str:
    """A value's kind in a user's words: text, number, list, object, true/false, null."""
    kinds = ((type(None), "null"), (bool, "true/false"), (str, "text"), ((int, float, np.number), "a number"),
             (Mapping, "an object"), ((list, tuple, np.ndarray), "a list"))  # fmt: skip
    return next((kind for types, kind in kinds if isinstance(value, types)), type(value).__name__)


def lookup(row: Mapping[str, Any], column: str) -> tuple[str, Any] | None:
    """(the name used, the value) of `column` in a row, under our name or ragas' alias; None when absent."""
    return next(((name, row[name]) for name in (column, _ALIAS_OF.get(column, column)) if name in row), None)


@dataclass
class RowChecker:
    """Checks rows, collecting every problem; `check_all` raises them as one `DatasetError`."""

    source: str
    #: Columns every row must have (e.g. the question, for `answer`).
    required: tuple[str, ...] = ()
    #: Whether a list column may hold text (a CSV cell: a JSON list or one plain item); else it must be a list.
    text_lists: bool = False
    problems: list[str] = field(default_factory=list)

    def check(self, row: Any, where: str) -> None:
        at = f"{self.source}:{where}"
        if not isinstance(row, Mapping):
            self.problems.append(f"{at}: a row must be an object with named columns, got {kind_of(row)}")
            return
        self._question(row, at)
        for column in (*TEXT_COLUMNS, GROUND_TRUTH):
            self._text(row, column, at, texts=column == GROUND_TRUTH)
        for column in (*TEXT_LIST_COLUMNS, *ID_LIST_COLUMNS):
            self._list(row, column, at, ids=column in ID_LIST_COLUMNS)
        for column in self.required:
            if column != QUESTION and lookup(row, column) is None:
                self.problems.append(f"{at}: no {column!r} column")

    def _question(self, row: Mapping[str, Any], at: str) -> None:
        found = lookup(row, QUESTION)
        if found is None:
            if QUESTION in self.required:
                self.problems.append(f"{at}: no question (a 'question' or 'user_input' column)")
            return
        name, value = found
        if is_missing(value):
            self.problems.append(f"{at}: column {name!r}: the question is null")
        elif not isinstance(value, str):
            self.problems.append(f"{at}: column {name!r}: the question must be text, got {kind_of(value)}")
        elif not value.strip():
            self.problems.append(f"{at}: column {name!r}: the question is empty")

    def _text(self, row: Mapping[str, Any], column: str, at: str, texts: bool) -> None:
        """One text, or (`texts`: ragas' `reference`, joined into one) a list of texts."""
        found = lookup(row, column)
        if found is None or is_missing(found[1]) or isinstance(found[1], str):
            return
        name, value = found
        if texts and isinstance(value, (list, tuple, np.ndarray)) and all(isinstance(item, str) for item in value):
            return
        wanted = "text (or a list of texts)" if texts else "text"
        self.problems.append(f"{at}: column {name!r}: must be {wanted}, got {kind_of(value)}")

    def _list(self, row: Mapping[str, Any], column: str, at: str, ids: bool) -> None:
        found = lookup(row, column)
        if found is None or is_missing(found[1]):
            return
        name, value = found
        if isinstance(value, str) and self.text_lists:
            return  # a CSV cell that is not a list: one item
        if not isinstance(value, (list, tuple, np.ndarray)):
            self.problems.append(f"{at}: column {name!r}: must be a list of texts, got {kind_of(value)}")
            return
        for index, item in enumerate(value):
            fine = isinstance(item, str) or (ids and isinstance(item, (int, np.integer)) and not isinstance(item, bool))
            if not fine:
                wanted = "a text or a whole number" if ids else "text"
                self.problems.append(f"{at}: column {name!r}, item {index}: must be {wanted}, got {kind_of(item)}")

    def check_all(self, rows: Sequence[Any], locations: Sequence[str]) -> None:
        for row, where in zip(rows, locations, strict=True):
            self.check(row, where)
        if self.problems:
            raise DatasetError(self.problems)


@dataclass
class ListCells:
    """Reads list columns stored as text (CSV): JSON lists, Python lists (repaired, counted), or one plain text."""

    source: str
    repaired: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def parse(self, value: Any, column: str, where: str) -> Any:
        text = value.strip() if isinstance(value, str) else ""
        if not text.startswith("["):
            return value
        with suppress(json.JSONDecodeError):
            return json.loads(text)
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            self.problems.append(
                f"{self.source}:{where}: column {column!r}: starts with '[' but is neither a JSON nor a Python list"
            )
            return value
        if not isinstance(parsed, (list, tuple)):
            self.problems.append(f"{self.source}:{where}: column {column!r}: not a list")
            return value
        self.repaired[column] = self.repaired.get(column, 0) + 1
        return list(parsed)

    def report(self) -> None:
        """One warning per column that held Python lists."""
        for column, count in self.repaired.items():
            warnings.warn(
                f"{self.source}: column {column!r} holds Python lists (as pandas' default to_csv writes them) in "
                f"{count} row(s); read them as lists (write JSON lists, as ragtest does, or use JSONL to avoid this)",
                InputRepairWarning,
                stacklevel=2,
            )
