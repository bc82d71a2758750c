"""Reviewing a generated test set: accept, edit or reject each question, keeping the original text.

Two files beside the test set `X.jsonl`, both rewritten atomically after every decision:

- `X.review.jsonl`: the decisions, one row per sample (`sample_id`, `decision`: accepted / edited / rejected,
  `reason`, the edited `question` and `ground_truth`, the `original_question` and `original_ground_truth`,
  `reviewer`, `time`): what the page resumes from;
- `X.reviewed.jsonl`: the reviewed test set, what `ragtest answer` (and `run --testset`) then use: rejected rows
  left out, edited rows with the new text and the original in `original_question` / `original_ground_truth`,
  every row with its `review_status` (accepted, edited, or pending when nobody has looked at it yet).

The test set file itself is never changed: it stays what the generator's seed reproduces.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ragtest_core.datasets import read_rows, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_write
from ragtest_core.labels import now, row_key
from ragtest_core.schema import GROUND_TRUTH, QUESTION, SAMPLE_ID

ACCEPTED, EDITED, REJECTED, PENDING = "accepted", "edited", "rejected", "pending"
DECISIONS = (ACCEPTED, EDITED, REJECTED)
REVIEW_STATUS = "review_status"
ORIGINAL_QUESTION = "original_question"
ORIGINAL_GROUND_TRUTH = "original_ground_truth"
REVIEWED_SUFFIX = ".reviewed"


def decisions_path(testset: Path) -> Path:
    return testset.with_name(f"{testset.stem}.review.jsonl")


def reviewed_path(testset: Path) -> Path:
    """Where the reviewed copy of `testset` goes: X.jsonl -> X.reviewed.jsonl."""
    return testset.with_name(f"{testset.stem}{REVIEWED_SUFFIX}{testset.suffix}")


def reviewed_or_original(testset: Path) -> Path:
    """The reviewed copy of a test set when there is one (what `answer` uses), else the test set itself."""
    if testset.stem.endswith(REVIEWED_SUFFIX):
        return testset
    reviewed = reviewed_path(testset)
    return reviewed if reviewed.is_file() else testset


def original_of(path: Path) -> Path:
    """`X.reviewed.jsonl` -> `X.jsonl` when that exists (reviewing the reviewed copy reviews the original)."""
    if path.stem.endswith(REVIEWED_SUFFIX):
        original = path.with_name(path.stem.removesuffix(REVIEWED_SUFFIX) + path.suffix)
        if original.is_file():
            return original
    return path


class TestsetReview:
    """The decisions on one test set, kept in memory and saved after each one (thread-safe)."""

    __test__ = False  # not a pytest class

    def __init__(self, testset: Path) -> None:
        self.testset = original_of(Path(testset))
        self.rows = read_rows(self.testset)
        if not self.rows:
            raise RagtestError(f"{self.testset} holds no questions to review")
        self.keys = [row_key(row) for row in self.rows]
        if len(set(self.keys)) != len(self.keys):
            raise RagtestError(f"{self.testset} has repeated sample_ids or questions: its rows cannot be told apart")
        self._lock = threading.Lock()
        self.decisions: dict[str, dict[str, Any]] = {}
        path = decisions_path(self.testset)
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.decisions[str(row[SAMPLE_ID])] = row

    def status(self, index: int) -> str:
        decision = self.decisions.get(self.keys[index])
        return str(decision["decision"]) if decision else PENDING

    def counts(self) -> dict[str, int]:
        found = {ACCEPTED: 0, EDITED: 0, REJECTED: 0, PENDING: 0}
        for index in range(len(self.rows)):
            found[self.status(index)] += 1
        return found

    def next_pending(self, after: int = -1) -> int | None:
        """The first row after `after` (wrapping round) that has no decision yet."""
        order = [*range(after + 1, len(self.rows)), *range(0, after + 1)]
        return next((i for i in order if self.status(i) == PENDING), None)

    def decide(self, index: int, decision: str, reviewer: str = "", **given: Any) -> dict[str, Any]:
        """Record a decision on row `index` (accepted; edited with `question` and/or `ground_truth`; rejected with
        a `reason`) and save both files."""
        if decision not in DECISIONS:
            raise RagtestError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
        row = self.rows[index]
        entry: dict[str, Any] = {
            SAMPLE_ID: self.keys[index],
            "decision": decision,
            "reviewer": reviewer,
            "time": now(),
            ORIGINAL_QUESTION: row.get(QUESTION),
            ORIGINAL_GROUND_TRUTH: row.get(GROUND_TRUTH),
        }
        if decision == REJECTED:
            reason = str(given.get("reason") or "").strip()
            if not reason:
                raise RagtestError("a rejection needs a reason")
            entry["reason"] = reason
        if decision == EDITED:
            question = " ".join(str(given.get(QUESTION) or row.get(QUESTION) or "").split())
            reference = str(given.get(GROUND_TRUTH) or row.get(GROUND_TRUTH) or "").strip()
            if not question:
                raise RagtestError("an edited question cannot be empty")
            if question == row.get(QUESTION) and reference == (row.get(GROUND_TRUTH) or ""):
                entry["decision"] = ACCEPTED  # nothing changed: an edit that keeps the text is an acceptance
            else:
                entry[QUESTION], entry[GROUND_TRUTH] = question, reference
        with self._lock:
            self.decisions[self.keys[index]] = entry
            self._save()
        return entry

    def reviewed_rows(self) -> list[dict[str, Any]]:
        """The test set as reviewed: rejected rows left out, edits applied with the original text kept."""
        out = []
        for index, row in enumerate(self.rows):
            decision = self.decisions.get(self.keys[index])
            status = str(decision["decision"]) if decision else PENDING
            if status == REJECTED:
                continue
            reviewed = dict(row)
            if status == EDITED and decision is not None:
                reviewed[ORIGINAL_QUESTION] = row.get(QUESTION)
                reviewed[ORIGINAL_GROUND_TRUTH] = row.get(GROUND_TRUTH)
                reviewed[QUESTION] = decision[QUESTION]
                reviewed[GROUND_TRUTH] = decision[GROUND_TRUTH]
            reviewed[REVIEW_STATUS] = status
            out.append(reviewed)
        return out

    def carry_to(self, testset: Path, sample_ids: Collection[str]) -> int:
        """Copy the decisions on `sample_ids` (rows a refresh kept as they were) to the review of `testset` and write
        its files; its other rows wait in its review queue. How many decisions were carried."""
        review = TestsetReview(testset)
        carried = {k: v for k, v in self.decisions.items() if k in sample_ids and k in review.keys}
        with review._lock:
            review.decisions.update(carried)
            review._save()
        return len(carried)

    def _save(self) -> None:
        lines = [
            json.dumps(self.decisions[k], ensure_ascii=False, sort_keys=True) for k in self.keys if k in self.decisions
        ]
        atomic_write(decisions_path(self.testset), lambda handle: handle.write("".join(line + "\n" for line in lines)))
        target = reviewed_path(self.testset)
        write_dataset(self.reviewed_rows(), target)
        manifest = self.testset.with_name(f"{self.testset.stem}.manifest.json")
        if manifest.is_file():  # the reviewed copy keeps the test set's seed and generation stats for `answer`
            shutil.copyfile(manifest, target.with_name(f"{target.stem}.manifest.json"))

    def view(self, index: int) -> dict[str, Any]:
        """Row `index` as the review page shows it."""
        row = self.rows[index]
        decision = self.decisions.get(self.keys[index]) or {}
        return {
            "index": index,
            "key": self.keys[index],
            "status": self.status(index),
            "question": str(row.get(QUESTION) or ""),
            "ground_truth": str(row.get(GROUND_TRUTH) or ""),
            "edited_question": decision.get(QUESTION),
            "edited_ground_truth": decision.get(GROUND_TRUTH),
            "reason": decision.get("reason", ""),
            "answer_span": str(row.get("answer_span") or ""),
            "question_type": str(row.get("question_type") or ""),
            "source": str(row.get("source") or ""),
            "source_url": str(row.get("source_url") or ""),
            "source_revision": str(row.get("source_revision") or ""),
            "heading_path": heading_path(row),
            "gold": gold_chunks(row, str(row.get("answer_span") or "")),
        }


def heading_path(row: Mapping[str, Any]) -> str:
    """The gold chunk's place in its document, when the test set records it."""
    for column in ("heading_path", "section_path", "section"):
        value = row.get(column)
        if isinstance(value, list) and value:
            return " > ".join(map(str, value))
        if value:
            return str(value)
    return ""


def gold_chunks(row: Mapping[str, Any], span: str = "") -> list[dict[str, Any]]:
    """The gold chunks, each as its id and its text in parts, the answer span's first occurrence marked."""
    texts = row.get("reference_contexts") or []
    ids = row.get("reference_context_ids") or []
    return [
        {"id": str(ids[i]) if i < len(ids) else "", "parts": marked_parts(str(text), span)}
        for i, text in enumerate(texts)
    ]


def marked_parts(text: str, span: str) -> list[tuple[str, bool]]:
    """`text` split around the first occurrence of `span`: [(before, False), (span, True), (after, False)]."""
    at = text.find(span) if span else -1
    if at < 0:
        return [(text, False)]
    return [(text[:at], False), (text[at : at + len(span)], True), (text[at + len(span) :], False)]
