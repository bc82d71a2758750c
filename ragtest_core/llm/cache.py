"""An on-disk cache of LLM replies keyed by content: model identity + messages + parameters (SQLite).

It also remembers what the runtime learnt about a model (e.g. that its server rejects native structured output),
so the next run does not ask again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Protocol


class ReplyCache(Protocol):
    """What a client needs of its reply cache: `LLMCache`, or one shared by the workers of a distributed run."""

    path: Path

    def get(self, key: str) -> tuple[str, dict[str, int]] | None: ...
    def put(self, key: str, model_id: str, reply: str, usage: dict[str, int]) -> None: ...
    def get_setting(self, model_id: str, name: str) -> str | None: ...
    def put_setting(self, model_id: str, name: str, value: str) -> None: ...


def cache_key(model_id: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    payload = json.dumps(
        {"model": model_id, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class LLMCache:
    """Replies stored in one SQLite file; safe to share between threads and across runs."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._conn.executescript(
            "PRAGMA journal_mode=WAL;"
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, reply TEXT, usage TEXT);"
            "CREATE TABLE IF NOT EXISTS model_settings (model TEXT, name TEXT, value TEXT, PRIMARY KEY (model, name))"
        )

    def get(self, key: str) -> tuple[str, dict[str, int]] | None:
        with self._lock:
            row = self._conn.execute("SELECT reply, usage FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else (str(row[0]), json.loads(row[1] or "{}"))

    def put(self, key: str, model_id: str, reply: str, usage: dict[str, int]) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO replies (key, model, reply, usage) VALUES (?, ?, ?, ?)",
                (key, model_id, reply, json.dumps(usage)),
            )

    def get_setting(self, model_id: str, name: str) -> str | None:
        """A value learnt about a model in an earlier run (None when unknown)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM model_settings WHERE model = ? AND name = ?", (model_id, name)
            ).fetchone()
        return None if row is None else str(row[0])

    def put_setting(self, model_id: str, name: str, value: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO model_settings (model, name, value) VALUES (?, ?, ?)", (model_id, name, value)
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
