"""The run folder's record of the provider batches it submitted (`llm_batches.jsonl`), written the moment each step
happens, so a process killed while a batch runs can, run again, resume polling that batch instead of paying again.

One JSON object a line, appended and synced to disk at once:

- `{"event": "uploaded", "file_id": ..., "keys": [...]}`: the requests (their cache keys, which are the batch's
  `custom_id`s) were uploaded as `file_id`; written before the batch is created.
- `{"event": "created", "file_id": ..., "batch_id": ...}`: the batch was created from that file.
- `{"event": "finished", "batch_id": ..., "status": ...}`: its results were read (and cached).

A batch created but not finished is pending: its keys are resumed. An upload with no "created" line (killed between
the two calls) is looked up among the provider's batches by its input file.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BATCH_JOURNAL_FILE = "llm_batches.jsonl"


@dataclass
class JournalEntry:
    """One uploaded request file and what became of it."""

    file_id: str
    keys: list[str]
    batch_id: str | None = None
    status: str | None = None  # set once finished


@dataclass
class BatchJournal:
    """Append-only record of one run folder's batches."""

    path: Path
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def pending(self) -> list[JournalEntry]:
        """Uploads whose batch was never finished (created or not), in order, as recorded (torn lines ignored)."""
        by_file: dict[str, JournalEntry] = {}
        for event in self._events():
            kind, file_id = event.get("event"), str(event.get("file_id", ""))
            if kind == "uploaded":
                by_file[file_id] = JournalEntry(file_id, [str(k) for k in event.get("keys", [])])
            elif kind == "created" and file_id in by_file:
                by_file[file_id].batch_id = str(event["batch_id"])
            elif kind == "finished":
                for entry in by_file.values():
                    if entry.batch_id == event.get("batch_id"):
                        entry.status = str(event.get("status"))
        return [entry for entry in by_file.values() if entry.status is None]

    def uploaded(self, file_id: str, keys: list[str]) -> None:
        self._append({"event": "uploaded", "file_id": file_id, "keys": keys})

    def created(self, file_id: str, batch_id: str) -> None:
        self._append({"event": "created", "file_id": file_id, "batch_id": batch_id})

    def finished(self, batch_id: str, status: str) -> None:
        self._append({"event": "finished", "batch_id": batch_id, "status": status})

    def _append(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())

    def _events(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        events = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill mid-write
            if isinstance(event, dict):
                events.append(event)
        return events
