"""Reading and writing datasets as JSONL (default), JSON (one array of row objects), Parquet or CSV.

Readers accept ragas' newer column names and turn list columns stored as text (CSV) back into lists. What a user
gives is checked at the boundary (`ragtest_core.dataset_checks`): a problem is an error naming the file, line and
column, never a silently dropped row or a coerced value. JSONL output is deterministic: the same rows always give
the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragtest_core.dataset_checks import DatasetError, ListCells, RowChecker, decode_utf8, is_missing, kind_of
from ragtest_core.dataset_checks import InputRepairWarning as InputRepairWarning  # re-exported
from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_path, atomic_write, atomic_write_text
from ragtest_core.schema import LIST_COLUMNS, RAGAS_ALIASES

SUPPORTED_SUFFIXES = (".jsonl", ".json", ".parquet", ".csv")


def input_file(path: str | Path) -> Path:
    """A dataset file a user named: it must exist and be a file (a folder is named as one)."""
    path = Path(path)
    if not path.exists():
        raise RagtestError(f"dataset file not found: {path}")
    if path.is_dir():
        raise RagtestError(f"{path} is a folder, not a dataset file: name the file (.jsonl, .json, .csv or .parquet)")
    return path


def output_file(path: str | Path) -> Path:
    """A file to write: not an existing folder."""
    path = Path(path)
    if path.is_dir():
        raise RagtestError(f"{path} is a folder: --output names the file to write, e.g. {path / 'answers.jsonl'}")
    return path


def read_dataset(path: str | Path) -> pd.DataFrame:
    """Read a user's dataset file into a DataFrame with ragtest's column names, checked at the boundary
    (`ragtest_core.dataset_checks`): every problem named with its file, line and column; no row is dropped."""
    path = input_file(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise RagtestError(f"unsupported dataset format {suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}")
    if not path.read_bytes().strip():
        raise DatasetError([f"{path} is empty: a dataset needs at least one row"])
    locations: list[str] | None = None
    if suffix == ".jsonl":
        rows, numbers = _jsonl_rows(path, torn_tail="error")
        frame, locations = pd.DataFrame(rows), [str(n) for n in numbers]
    elif suffix == ".json":
        frame = pd.DataFrame(read_json_array(path))
    elif suffix == ".parquet":
        frame = _read_parquet(path)
    else:
        frame, locations = _read_csv(path)
    if frame.empty:
        raise DatasetError([f"{path} holds no rows"])
    return normalise_columns(frame, source=str(path), locations=locations, text_cells=suffix == ".csv")


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow's ArrowInvalid, OSError, ...: a file that is not Parquet
        raise DatasetError([f"{path}: not a readable Parquet file ({' '.join(str(exc).split())[:200]})"]) from None


#: Text columns read from a CSV as text ("42" stays "42"), under our names and ragas'.
_CSV_TEXT_COLUMNS = ("question", "user_input", "answer", "response", "ground_truth", "reference", "sample_id")


def _read_csv(path: Path) -> tuple[pd.DataFrame, list[str]]:
    """A CSV's rows (text columns as text), and where each row starts ("line N")."""
    text = decode_utf8(path.read_bytes(), str(path))
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            keep_default_na=False,
            na_values=[""],  # only empty cells are missing
            dtype={name: str for name in _CSV_TEXT_COLUMNS},
        )
    except pd.errors.EmptyDataError:
        raise DatasetError([f"{path} is empty: a dataset needs a header line and at least one row"]) from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DatasetError([f"{path}: not valid CSV ({' '.join(str(exc).split())})"]) from None
    reader, previous, found = csv.reader(io.StringIO(text)), 0, []  # (start line, fields) of each record
    for record in reader:
        if record:
            found.append((previous + 1, len(record)))
        previous = reader.line_num
    width = len(frame.columns)
    if short := [f"{path}:{at}: {n} field(s) where the header has {width} (a torn or broken line)"
                 for at, n in found[1:] if n < width]:  # fmt: skip
        raise DatasetError(short)
    lines = [str(at) for at, _ in found[1:]]
    return frame, lines if len(lines) == len(frame) else [f"row {index + 1}" for index in range(len(frame))]


def read_jsonl(path: str | Path, torn_tail: str = "error") -> list[dict[str, Any]]:
    """Rows of a JSONL file, each line checked: bytes that are not UTF-8, a line that is not JSON or a row that is
    not an object raise `DatasetError` naming the line and column. `torn_tail="skip"` drops an unparseable last
    line instead: for ragtest's own progress files after a crash, never for a file a user gave."""
    return _jsonl_rows(Path(path), torn_tail)[0]


def _jsonl_rows(path: Path, torn_tail: str) -> tuple[list[dict[str, Any]], list[int]]:
    lines = decode_utf8(path.read_bytes(), str(path)).splitlines()
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    problems: list[str] = []
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == last and torn_tail == "skip":
                break
            torn = " (a torn line: the file was cut off)" if number == last else ""
            problems.append(f"{path}:{number}:{exc.colno}: not valid JSON ({exc.msg}){torn}")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path}:{number}: a row must be a JSON object ({{...}}), got {kind_of(row)}")
            continue
        rows.append(row)
        numbers.append(number)
    if problems:
        raise DatasetError(problems)
    return rows, numbers


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts keyed by column name (as text)."""
    return [{str(key): value for key, value in row.items()} for row in frame.to_dict(orient="records")]


def read_rows(path: str | Path, required: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A dataset file's rows as dicts, checked like `read_dataset` (`required`: columns every row needs, e.g.
    the question): JSONL rows as written (no column renaming), other formats via `read_dataset`."""
    path = input_file(path)
    if path.suffix.lower() == ".jsonl" and path.read_bytes().strip():
        rows, numbers = _jsonl_rows(path, torn_tail="error")
        where = [str(n) for n in numbers]
    else:  # another format, or an empty file (`read_dataset` names the problem)
        rows = records(read_dataset(path))
        where = [f"row {n}" for n in range(1, len(rows) + 1)]
    RowChecker(str(path), required).check_all(rows, where)
    return rows


def read_json_array(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a `.json` file: a JSON array of objects (what `write_dataset` writes and pandas users expect)."""
    text = decode_utf8(Path(path).read_bytes(), str(path))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{path}:{exc.lineno}:{exc.colno}"
        raise DatasetError(
            [f"{where}: not valid JSON ({exc.msg}); a .json dataset is one array of row objects"]
        ) from None
    if isinstance(value, dict):  # {"column": [values...]} as pandas' orient="list"/"columns" writes
        return records(pd.DataFrame(value))
    if not isinstance(value, list):
        raise DatasetError([f"{path}: a .json dataset must be an array of row objects, got {kind_of(value)}"])
    bad = [f"{path}: item {i}: a row must be an object, got {kind_of(row)}" for i, row in enumerate(value)
           if not isinstance(row, dict)]  # fmt: skip
    if bad:
        raise DatasetError(bad)
    return value


def normalise_columns(
    frame: pd.DataFrame, source: str = "the dataset", locations: Sequence[str] | None = None, text_cells: bool = True
) -> pd.DataFrame:
    """Rename ragas' newer names to ours, check every row (`DatasetError` naming each problem) and make list
    columns real lists. With `text_cells` (a CSV, or a DataFrame a user built), a list column may hold text: a JSON
    list, a Python list (read as a list, with a warning) or a plain text (one item); elsewhere it must be a list.
    Problems and warnings name each column as the input names it (`retrieved_contexts`, not `contexts`)."""
    renames = {old: new for old, new in RAGAS_ALIASES.items() if old in frame.columns and new not in frame.columns}
    given = {new: old for old, new in renames.items()}  # our name -> the input's
    frame = frame.copy()  # the caller's frame is left as it was
    where = list(locations) if locations is not None else [f"row {n}" for n in range(1, len(frame) + 1)]
    cells = ListCells(source)
    for name in (given.get(column, column) for column in LIST_COLUMNS):
        if name in frame.columns and text_cells:
            frame[name] = [cells.parse(v, name, at) for v, at in zip(frame[name], where, strict=True)]
    if cells.problems:
        raise DatasetError(cells.problems)
    RowChecker(source, text_lists=text_cells).check_all(records(frame), where)  # ragas' names as well as ours
    cells.report()
    frame = frame.rename(columns=renames)
    for column in LIST_COLUMNS:
        if column in frame.columns:
            frame[column] = [as_str_list(value) for value in frame[column]]
    if "ground_truth" in frame.columns:
        frame["ground_truth"] = [join_if_list(value) for value in frame["ground_truth"]]
    return frame


def as_str_list(value: Any) -> list[str]:
    """A list of strings from a list, an array, a JSON string or a scalar."""
    if is_missing(value):
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            with suppress(json.JSONDecodeError):
                return [str(item) for item in json.loads(text)]
        return [value] if text else []
    if isinstance(value, (list, tuple, np.ndarray)):
        return [str(item) for item in value]
    return [str(value)]


def cell_text(value: Any) -> str:
    """A cell as text: "" for a missing value (None or NaN)."""
    return "" if is_missing(value) else str(value)


def join_if_list(value: Any) -> Any:
    """ragas' `reference` may be a list of strings; ground_truth is one text."""
    return "\n".join(str(item) for item in value) if isinstance(value, (list, tuple, np.ndarray)) else value


def write_dataset(frame: pd.DataFrame | Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write a dataset atomically (a temporary file renamed into place, so a killed run never leaves half a file);
    the format follows the file suffix (JSONL when none is given)."""
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".jsonl")
    plain = [to_jsonable(row) for row in (records(frame) if isinstance(frame, pd.DataFrame) else frame)]
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        atomic_write(path, lambda handle: handle.writelines(dumps_row(row) + "\n" for row in plain))
    elif suffix == ".json":
        atomic_write_text(path, json.dumps(plain, ensure_ascii=False, allow_nan=False, indent=1) + "\n")
    elif suffix == ".parquet":
        with atomic_path(path) as tmp:
            pd.DataFrame(plain).to_parquet(tmp, index=False)
    elif suffix == ".csv":
        flat = [
            {k: json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v for k, v in r.items()} for r in plain
        ]
        with atomic_path(path) as tmp:
            pd.DataFrame(flat).to_csv(tmp, index=False)
    else:
        raise RagtestError(f"unsupported dataset format {suffix!r}; use one of {', '.join(SUPPORTED_SUFFIXES)}")
    return path


def dumps_row(row: Mapping[str, Any]) -> str:
    return json.dumps(to_jsonable(row), ensure_ascii=False, allow_nan=False)


def to_jsonable(row: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON values: numpy scalars and arrays become Python ones, NaN becomes None."""
    return {str(key): _plain(value) for key, value in row.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        value = value.item()
    return None if is_missing(value) or value is pd.NA or value is pd.NaT else value


class JsonlAppender(AbstractContextManager["JsonlAppender"]):
    """Appends rows to a JSONL file as they complete, flushed each time, so a killed run loses nothing written."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = self.path.read_bytes() if self.path.exists() else b""
        if data and not data.endswith(b"\n"):  # a torn last line (a run killed mid-write) is dropped
            self.path.write_bytes(data[: data.rfind(b"\n") + 1])
        self._handle = self.path.open("a", encoding="utf-8")

    def append(self, row: Mapping[str, Any]) -> None:
        self._handle.write(dumps_row(row) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()

    def __exit__(self, *exc: object) -> None:
        self.close()
