"""Writing files atomically: a temporary file beside the target, renamed into place, so a killed run never leaves
half a file behind (the reader sees the old file or the new one, never a torn one)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write; on success it replaces `path` (parent folders are created), on error it is
    removed and `path` is left as it was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write(path: str | Path, write: Callable[[IO[str]], Any]) -> Path:
    """Call `write(handle)` on a UTF-8 text handle whose content replaces `path` atomically."""
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as handle:
        write(handle)
    return Path(path)


def atomic_write_text(path: str | Path, text: str) -> Path:
    """`text` written to `path` atomically (UTF-8)."""
    return atomic_write(path, lambda handle: handle.write(text))


def write_json(value: Any, path: str | Path) -> Path:
    """Pretty, key-sorted JSON written atomically (values JSON cannot hold are written as text)."""
    return atomic_write_text(path, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n")
