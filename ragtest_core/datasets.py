"""Reading and writing datasets as JSONL (default), JSON (one array of row objects), Parquet or CSV.

Readers accept ragas' newer column names and turn list columns stored as text (CSV) back into lists.
JSONL output is deterministic: the same rows always give the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_path, atomic_write, atomic_write_text
from ragtest_core.schema import LIST_COLUMNS, RAGAS_ALIASES

SUPPORTED_SUFFIXES = (".jsonl", ".json", ".parquet", ".csv")


def read_dataset(path: str | Path) -> pd.DataFrame:
    """Read a dataset file into a DataFrame with ragtest's column names."""
    path = Path(path)
    if not path.exists():
        raise RagtestError(f"dataset file not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        frame = pd.DataFrame(read_jsonl(path))
    elif suffix == ".json":
        frame = pd.DataFrame(read_json_array(path))
    elif suffix == ".parquet":
        frame = pd.read_parquet(path)
    elif suffix == ".csv":
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])  # only empty cells are missing
    else:
        raise RagtestError(f"unsupported dataset format {suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}")
    return normalise_columns(frame)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file; a torn last line (from a killed run) is skipped."""
    rows: list[dict[str, Any]] = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise RagtestError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
    return rows


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts keyed by column name (as text)."""
    return [{str(key): value for key, value in row.items()} for row in frame.to_dict(orient="records")]


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """A dataset file's rows as dicts: JSONL rows as written (no column renaming), other formats via `read_dataset`."""
    if not Path(path).exists():
        raise RagtestError(f"dataset file not found: {path}")
    if Path(path).suffix.lower() == ".jsonl":
        return read_jsonl(path)
    return records(read_dataset(path))


def read_json_array(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a `.json` file: a JSON array of objects (what `write_dataset` writes and pandas users expect)."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RagtestError(f"{path}: not valid JSON ({exc.msg}); a .json dataset is one array of row objects") from exc
    if isinstance(value, dict):  # {"column": [values...]} as pandas' orient="list"/"columns" writes
        return records(pd.DataFrame(value))
    if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
        raise RagtestError(f"{path}: a .json dataset must be an array of row objects")
    return value


def normalise_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Rename ragas' newer names to ours and make list columns real lists."""
    renames = {old: new for old, new in RAGAS_ALIASES.items() if old in frame.columns and new not in frame.columns}
    frame = frame.rename(columns=renames)
    for column in LIST_COLUMNS:
        if column in frame.columns:
            frame[column] = [as_str_list(value) for value in frame[column]]
    if "ground_truth" in frame.columns:
        frame["ground_truth"] = [join_if_list(value) for value in frame["ground_truth"]]
    return frame


def as_str_list(value: Any) -> list[str]:
    """A list of strings from a list, an array, a JSON string or a scalar."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                return [value]
            return [str(item) for item in parsed]
        return [value] if text else []
    if isinstance(value, (list, tuple, np.ndarray)):
        return [str(item) for item in value]
    return [str(value)]


def join_if_list(value: Any) -> Any:
    """ragas' `reference` may be a list of strings; ground_truth is one text."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return "\n".join(str(item) for item in value)
    return value


def write_dataset(frame: pd.DataFrame | Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write a dataset atomically (a temporary file renamed into place, so a killed run never leaves half a file);
    the format follows the file suffix (JSONL when none is given)."""
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".jsonl")
    rows = records(frame) if isinstance(frame, pd.DataFrame) else [dict(r) for r in frame]
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        write_jsonl(rows, path)
    elif suffix == ".json":
        plain = [to_jsonable(row) for row in rows]
        atomic_write_text(path, json.dumps(plain, ensure_ascii=False, allow_nan=False, indent=1) + "\n")
    elif suffix == ".parquet":
        with atomic_path(path) as tmp:
            pd.DataFrame([to_jsonable(row) for row in rows]).to_parquet(tmp, index=False)
    elif suffix == ".csv":
        flat = [
            {k: json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v for k, v in to_jsonable(row).items()}
            for row in rows
        ]
        with atomic_path(path) as tmp:
            pd.DataFrame(flat).to_csv(tmp, index=False)
    else:
        raise RagtestError(f"unsupported dataset format {suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}")
    return path


def write_jsonl(rows: Iterable[Mapping[str, Any]], path: str | Path) -> None:
    """Write rows as JSONL atomically."""
    atomic_write(path, lambda handle: handle.writelines(dumps_row(row) + "\n" for row in rows))


def dumps_row(row: Mapping[str, Any]) -> str:
    return json.dumps(to_jsonable(row), ensure_ascii=False, allow_nan=False)


def to_jsonable(row: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON values: numpy scalars and arrays become Python ones, NaN becomes None."""
    return {str(key): _plain(value) for key, value in row.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_plain(item) for item in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


class JsonlAppender:
    """Appends rows to a JSONL file as they complete, flushed each time, so a killed run loses nothing written."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._drop_torn_tail()
        self._handle = self.path.open("a", encoding="utf-8")

    def _drop_torn_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            self.path.write_bytes(data[: data.rfind(b"\n") + 1])

    def append(self, row: Mapping[str, Any]) -> None:
        self._handle.write(dumps_row(row) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
