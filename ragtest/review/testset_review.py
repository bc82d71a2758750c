"""Reviewing a generated test set: accept, edit or reject each question, keeping the original text.

Two files beside the test set `X.jsonl`, both rewritten atomically after every decision (docs/trust.md): the
decisions `X.review.jsonl`, one row per sample (`sample_id`, `decision`, `reason`, the edited `question` and
`ground_truth`, `original_question`, `original_ground_truth`, `reviewer`, `time`), which the page resumes from; and
the test set as reviewed `X.reviewed.jsonl`, which `ragtest answer` (and `run --testset`) then use. The test set file
itself is never changed: it stays what the generator's seed reproduces.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections import Counter
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ragtest_core.datasets import read_jsonl, read_rows, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.files import atomic_write_text
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
    reviewed = reviewed_path(testset)
    return reviewed if not testset.stem.endswith(REVIEWED_SUFFIX) and reviewed.is_file() else testset


def original_of(path: Path) -> Path:
    """`X.reviewed.jsonl` -> `X.jsonl` when that exists (reviewing the reviewed copy reviews the original)."""
    original = path.with_name(path.stem.removesuffix(REVIEWED_SUFFIX) + path.suffix)
    return original if path.stem.endswith(REVIEWED_SUFFIX) and original.is_file() else path


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
        path = decisions_path(self.testset)
        self.decisions = {str(row[SAMPLE_ID]): row for row in (read_jsonl(path) if path.is_file() else [])}

    def status(self, index: int) -> str:
        decision = self.decisions.get(self.keys[index])
        return str(decision["decision"]) if decision else PENDING

    def counts(self) -> dict[str, int]:
        return dict.fromkeys((*DECISIONS, PENDING), 0) | Counter(self.status(i) for i in range(len(self.rows)))

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
            status = self.status(index)
            if status == REJECTED:
                continue
            reviewed = dict(row)
            if status == EDITED:
                decision = self.decisions[self.keys[index]]
                reviewed |= {ORIGINAL_QUESTION: row.get(QUESTION), ORIGINAL_GROUND_TRUTH: row.get(GROUND_TRUTH)}
                reviewed |= {QUESTION: decision[QUESTION], GROUND_TRUTH: decision[GROUND_TRUTH]}
            out.append({**reviewed, REVIEW_STATUS: status})
        return out

    def carry_to(self, testset: Path, sample_ids: Collection[str]) -> int:
        """Copy the decisions on `sample_ids` (rows a refresh kept as they were) to the review of `testset` and write
        its files; its other rows wait in its review queue. How many decisions were carried."""
        review = TestsetReview(testset)
        carried = {k: v for k, v in self.decisions.items() if k in sample_ids and k in review.keys}
        review.decisions.update(carried)
        review._save()
        return len(carried)

    def _save(self) -> None:
        decided = [self.decisions[k] for k in self.keys if k in self.decisions]
        lines = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in decided)
        atomic_write_text(decisions_path(self.testset), lines)
        target = reviewed_path(self.testset)
        write_dataset(self.reviewed_rows(), target)
        manifest = self.testset.with_name(f"{self.testset.stem}.manifest.json")
        if manifest.is_file():  # the reviewed copy keeps the test set's seed and generation stats for `answer`
            shutil.copyfile(manifest, target.with_name(f"{target.stem}.manifest.json"))

    def view(self, index: int) -> dict[str, Any]:
        """Row `index` as the review page shows it."""
        row = self.rows[index]
        decision = self.decisions.get(self.keys[index]) or {}
        shown = (QUESTION, GROUND_TRUTH, "answer_span", "question_type", "source", "source_revision")
        return {
            "index": index,
            "key": self.keys[index],
            "status": self.status(index),
            **{column: str(row.get(column) or "") for column in shown},
            "edited_question": decision.get(QUESTION),
            "edited_ground_truth": decision.get(GROUND_TRUTH),
            "reason": decision.get("reason", ""),
            "gold": gold_chunks(row, str(row.get("answer_span") or "")),
        }


def gold_chunks(row: Mapping[str, Any], span: str) -> list[dict[str, Any]]:
    """The gold chunks, each as its id and its text in parts around the answer span's first occurrence:
    [(before, False), (span, True), (after, False)], or [(text, False)] without it."""
    ids = row.get("reference_context_ids") or []
    gold = []
    for i, text in enumerate(map(str, row.get("reference_contexts") or [])):
        before, found, after = text.partition(span) if span else (text, "", "")
        parts = [(before, False), (found, True), (after, False)] if found else [(text, False)]
        gold.append({"id": str(ids[i]) if i < len(ids) else "", "parts": parts})
    return gold
