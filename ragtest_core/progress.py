"""Progress files: rows a stage saves as they complete (`answers.partial.jsonl`), so a killed run resumes without
repeating work, and never with work another configuration did.

The first line records what made the rows: `{"ragtest_progress": 1, "identity": {...}, "fingerprint": "..."}`.
`identity` says it in words, as it may be written (secrets redacted); `fingerprint` hashes the full identity,
secrets included, so changing a key or a header is a difference too. A stage resumes from the file only when its
own fingerprint is the file's; otherwise `ProgressMismatchError` names each difference. Being ragtest's own file,
a torn last line (a run killed mid-write) is expected and dropped; a torn line anywhere else is an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtest_core.datasets import JsonlAppender, read_jsonl
from ragtest_core.errors import RagtestError
from ragtest_core.schema import stable_id

HEADER_KEY = "ragtest_progress"
LAYOUT = 1


class ProgressMismatchError(RagtestError):
    """A progress file was made by another configuration than the run that would resume from it."""


@dataclass(frozen=True)
class Identity:
    """What made a stage's rows: `shown` in words (secrets redacted, for files and messages) and the fingerprint
    of everything, secrets included (`secret` holds what only the fingerprint may see)."""

    shown: Mapping[str, Any]
    secret: Mapping[str, Any]

    @property
    def fingerprint(self) -> str:
        payload = json.dumps({"shown": self.shown, "secret": self.secret}, sort_keys=True, default=str)
        return stable_id(payload, length=16)

    def header(self) -> dict[str, Any]:
        return {HEADER_KEY: LAYOUT, "identity": dict(self.shown), "fingerprint": self.fingerprint}


def read_progress(path: str | Path, identity: Identity) -> list[dict[str, Any]]:
    """The rows saved in `path` by a run of the same `identity` ([] when there is no file); a file made by
    another configuration raises `ProgressMismatchError` naming what differs and what to do."""
    path = Path(path)
    if not path.exists() or not path.read_bytes().strip():
        return []
    rows = read_jsonl(path, torn_tail="skip")
    header = rows[0] if rows and HEADER_KEY in rows[0] else None
    if header is None or header.get("fingerprint") != identity.fingerprint:
        raise ProgressMismatchError(mismatch_message(path, header, identity, len(rows) - (header is not None)))
    return rows[1:]


def mismatch_message(path: Path, header: Mapping[str, Any] | None, identity: Identity, rows: int) -> str:
    advice = (
        f"run with the same settings to resume from it, or delete {path} to start over (or write to another --output)"
    )
    if header is None:
        return f"{path} holds {rows} saved row(s) that record no configuration (an older ragtest?); {advice}"
    before = header.get("identity") or {}
    differences = [
        f"{name}: {before.get(name)!r} there, {identity.shown.get(name)!r} now"
        for name in sorted(set(before) | set(identity.shown))
        if before.get(name) != identity.shown.get(name)
    ] or ["a secret argument (key, token, password or header) differs"]
    return f"{path} holds {rows} saved row(s) from another configuration ({'; '.join(differences)}); {advice}"


class ProgressWriter(JsonlAppender):
    """Appends rows to a progress file, starting it with the identity's header when the file is new."""

    def __init__(self, path: str | Path, identity: Identity) -> None:
        path = Path(path)
        fresh = not path.exists() or not path.read_bytes().strip()
        if fresh:
            path.unlink(missing_ok=True)
        super().__init__(path)
        if fresh:
            self.append(identity.header())
