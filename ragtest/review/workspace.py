"""What `ragtest review PATH` works on: a test set to review and/or a run's answers to label.

- a run folder: its test set (testset.jsonl) for review, and its scored rows (scores.jsonl, else answers.jsonl)
  for labelling, with the labels in the folder's labels.jsonl;
- a file with answers (a scored or answered dataset): labelling only, labels in its folder's labels.jsonl;
- any other dataset file: a test set to review.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragtest.review.testset_review import original_of
from ragtest.run_state import ANSWERS_FILE, SCORES_FILE, TESTSET_FILE
from ragtest_core.datasets import SUPPORTED_SUFFIXES, read_rows
from ragtest_core.errors import RagtestError
from ragtest_core.labels import LABELS_FILE
from ragtest_core.schema import ANSWER


@dataclass(frozen=True)
class Workspace:
    testset: Path | None
    rows: Path | None

    @property
    def labels(self) -> Path | None:
        """The labels file: labels.jsonl in the folder of the rows to label."""
        return self.rows.parent / LABELS_FILE if self.rows else None

    @property
    def folder_name(self) -> str:
        """The name of the folder under review, resolved ("runs/v1", "." and "v1/testset.jsonl" all name a real
        folder, never "."); empty when there is no file."""
        path = self.testset or self.rows
        if path is None:
            return ""
        folder = path.parent.resolve()
        return folder.name or str(folder)


def _first(folder: Path, name: str) -> Path | None:
    return next((p for suffix in SUPPORTED_SUFFIXES if (p := (folder / name).with_suffix(suffix)).is_file()), None)


def resolve(path: str | Path) -> Workspace:
    """The files behind PATH; RagtestError when there is nothing to review or label."""
    target = Path(path)
    if target.is_dir():
        testset = _first(target, TESTSET_FILE)
        rows = _first(target, SCORES_FILE) or _first(target, ANSWERS_FILE)
        if testset is None and rows is None:
            raise RagtestError(f"{target} holds no {TESTSET_FILE}, {SCORES_FILE} or {ANSWERS_FILE} to review")
        return Workspace(testset, rows)
    if not target.is_file():
        raise RagtestError(f"not found: {target} (give a test set file or a run folder)")
    if (found := read_rows(target)) and ANSWER in found[0]:
        return Workspace(None, target)
    return Workspace(original_of(target), None)
