"""Human labels: the labels file (`labels.jsonl`) that the review page writes and that agreement and
prediction-powered inference read (described for users in docs/trust.md). One row per sample and labeller:

    {"sample_id": "...", "labeller": "ana", "time": "2026-11-24T10:03:12+00:00",
     "faithfulness": 1, "answer_correctness": 0.5, "context_precision": 0.83,
     "relevant_contexts": [true, false, true], "selection": "random", "answer_id": "3f2a9c01b7e4"}

Every other column is a metric label: 1 (yes), 0.5 (partly), 0 (no), a value in [0, 1] derived from marks, or null.
`selection` is "random" (seeded and stratified: prediction-powered inference applies) or "least_sure" (where the
judge was least sure: no random sample); `answer_id` fingerprints what was labelled, so a label whose row has since
changed is left out, counted; rows sharing a `pair_id` are a preference pair (one 1, the other 0), as in WikiEval.
The file is rewritten atomically on every change (the rows are few).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ragtest_core.datasets import as_str_list, read_jsonl
from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_write
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, SAMPLE_ID, stable_id

LABELS_FILE = "labels.jsonl"
LABELLER = "labeller"
TIME = "time"
SELECTION = "selection"
ANSWER_ID = "answer_id"
PAIR_ID = "pair_id"
RELEVANT_CONTEXTS = "relevant_contexts"
NOTE = "note"
#: Columns of a label row that are not metric labels.
RESERVED = frozenset({SAMPLE_ID, LABELLER, TIME, SELECTION, ANSWER_ID, PAIR_ID, RELEVANT_CONTEXTS, NOTE})
#: The three answers a labeller gives, and the value each is stored as.
CHOICES: dict[str, float] = {"yes": 1.0, "partly": 0.5, "no": 0.0}
RANDOM = "random"
LEAST_SURE = "least_sure"
SELECTIONS = (RANDOM, LEAST_SURE)


def row_key(row: Mapping[str, Any]) -> str:
    """A row's identity in its test set: its sample_id, else its question's text (whitespace-normalised)."""
    sample_id = row.get(SAMPLE_ID)
    if isinstance(sample_id, str) and sample_id.strip():
        return sample_id.strip()
    return " ".join(str(row.get(QUESTION, "")).split())


def answer_id(row: Mapping[str, Any]) -> str:
    """A fingerprint of what a labeller judged: the question, the answer, the retrieved contexts and the reference
    answer (a row whose reference `ragtest refresh` updated keeps its sample_id, but not its labels)."""
    contexts = as_str_list(row.get(CONTEXTS))
    reference = f"reference:{row.get(GROUND_TRUTH) or ''}"
    return stable_id(str(row.get(QUESTION) or ""), str(row.get(ANSWER) or ""), *contexts, reference)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def label_value(value: Any) -> float | None:
    """A label as stored: None, or a number in [0, 1] ("yes"/"partly"/"no" and booleans accepted)."""
    if value is None:
        return None
    if isinstance(value, str):
        key = value.strip().lower()
        if key in CHOICES:
            return CHOICES[key]
        try:
            value = float(key)
        except ValueError:
            raise RagtestError(f"a label must be yes, partly, no or a number in [0, 1], got {value!r}") from None
    if not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise RagtestError(f"a label must be a number in [0, 1], got {value!r}")
    return float(value)


def metric_columns(row: Mapping[str, Any]) -> list[str]:
    """The metric labels a row holds (every column that is not one of the reserved ones)."""
    return [key for key in row if key not in RESERVED]


def check_row(row: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """A label row validated and normalised (labels as floats or None); RagtestError naming what is wrong."""
    prefix = f"{where}: " if where else ""
    sample_id = row.get(SAMPLE_ID)
    if not isinstance(sample_id, str) or not sample_id.strip():
        raise RagtestError(f"{prefix}a label row needs a sample_id")
    labeller = str(row.get(LABELLER) or "").strip()
    if not labeller:
        raise RagtestError(f"{prefix}a label row needs a labeller")
    selection = row.get(SELECTION)
    if selection is not None and selection not in SELECTIONS:
        raise RagtestError(f"{prefix}selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    out = {**row, SAMPLE_ID: sample_id.strip(), LABELLER: labeller}
    for column in metric_columns(row):
        try:
            out[column] = label_value(row[column])
        except RagtestError as exc:
            raise RagtestError(f"{prefix}{column}: {exc}") from None
    return out


def read_labels(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a labels file (JSONL), validated; the last row wins for a repeated (sample, labeller)."""
    file = Path(path)
    if not file.is_file():
        raise RagtestError(f"labels file not found: {file}")
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for number, row in enumerate(read_jsonl(file), start=1):
        checked = check_row(row, f"{file}:{number}")
        latest[(checked[SAMPLE_ID], checked[LABELLER])] = checked
    return list(latest.values())


def labellers(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The labellers in the order they first appear."""
    return list(dict.fromkeys(str(row[LABELLER]) for row in rows))


def labelled_metrics(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every metric that has at least one label, in the order first seen."""
    return list(dict.fromkeys(column for row in rows for column in metric_columns(row) if row[column] is not None))


class LabelStore:
    """The labels file of a run, kept in memory and rewritten atomically after every change (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        rows = read_labels(self.path) if self.path.is_file() else []
        self._rows: dict[tuple[str, str], dict[str, Any]] = {(row[SAMPLE_ID], row[LABELLER]): row for row in rows}

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(row) for row in self._rows.values()]

    def get(self, sample_id: str, labeller: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._rows.get((sample_id, labeller))
            return dict(row) if row is not None else None

    def labelled(self, labeller: str) -> set[str]:
        """The samples `labeller` has labelled."""
        with self._lock:
            return {sample for sample, who in self._rows if who == labeller}

    def put(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Add or replace the row of (sample_id, labeller), stamped with the time, and save the file."""
        checked = check_row({**row, TIME: row.get(TIME) or now()})
        with self._lock:
            self._rows[(checked[SAMPLE_ID], checked[LABELLER])] = checked
            write_labels(list(self._rows.values()), self.path)
        return checked


def write_labels(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write label rows (validated) as a labels file, atomically."""
    lines = [json.dumps(check_row(row), ensure_ascii=False, sort_keys=True) + "\n" for row in rows]
    return atomic_write(path, lambda handle: handle.writelines(lines))
