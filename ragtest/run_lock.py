"""One run at a time per folder: an OS-level lock (`filelock`, an flock on Unix) on `<folder>/.ragtest.lock`.

The operating system releases the lock when the process ends, however it ends (kill -9 included), so a crashed
run never leaves a stale lock behind. A second run on the same folder is refused at once with a message naming
the run that holds it (its pid, command and start time, from `.ragtest.lock.json`, written after locking).
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock, Timeout

from ragtest.config import RunConfig
from ragtest.settings import redact_argv
from ragtest_core.errors import RagtestError
from ragtest_core.files import write_json

LOCK_FILE = ".ragtest.lock"
HOLDER_FILE = ".ragtest.lock.json"
#: How long (x 50 ms) a refused run waits for the holder's record, written just after the holder locked.
HOLDER_WAIT_STEPS = 20


class FolderInUseError(RagtestError):
    """Another ragtest run holds the folder."""


class RunLock:
    """The lock of one folder, held by this process from `acquire` to `release` (re-entrant in one thread: the
    stages of one run share it; another thread or process is refused)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # one lock object per folder in this process (filelock's singleton): the stages of a run share it
        self._lock = FileLock(str(folder.resolve() / LOCK_FILE), timeout=0, is_singleton=True)
        self._held = False

    def acquire(self) -> RunLock:
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise FolderInUseError(self.busy_message()) from None
        self._held = True
        if self._lock.lock_counter == 1:
            holder = {
                "pid": os.getpid(),
                "command": redact_argv(sys.argv, RunConfig),
                "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
            write_json(holder, self.folder / HOLDER_FILE)
        return self

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        if self._lock.lock_counter == 1:  # the last release of this run: its holder record goes first
            (self.folder / HOLDER_FILE).unlink(missing_ok=True)
        self._lock.release()

    def busy_message(self) -> str:
        for _ in range(HOLDER_WAIT_STEPS):  # the holder writes its record just after locking: give it a moment
            if (holder := read_holder(self.folder)) is not None:
                break
            time.sleep(0.05)
        who = "another ragtest run"
        if holder:
            words = holder.get("command")
            command = " ".join(str(word) for word in words) if isinstance(words, list) else ""
            who += f" (pid {holder.get('pid')}, started {holder.get('started_at')}: {command})"
        return (
            f"{self.folder} is in use by {who}; one run at a time per folder: wait for it to finish, or write "
            "this run to another folder (--out, --output)"
        )


def read_holder(folder: Path) -> dict[str, object] | None:
    """Who holds (or last held) the folder's lock, as it wrote itself down; None when unknown."""
    try:
        value = json.loads((folder / HOLDER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
