"""Ray's own lines in the run folder's `ray.log`, not on the console (unless the user asks, with `--ray-logs`).

Ray speaks in three ways, each sent to the file by Ray's own means where it has one:

- its Python loggers ("ray": start-up, token authentication, errors reported by the cluster; "ray.data": each
  pipeline's plan and end): their console handlers are set aside and a file handler added while a stage runs;
- its workers' output: not streamed to the driver (`ray.init(log_to_driver=False)`); it stays in Ray's session logs,
  whose folder the file names;
- its C++ core worker, which writes errors to the process's stderr itself. Ray has no setting for that stream alone
  (RAY_BACKEND_LOG_LEVEL silences the line everywhere, Ray's own log files included), so the stderr descriptor points
  at the file while a pipeline starts its actor pool, the one place a line was seen ("constructor arguments in the
  object store", which Ray Data's actor pools always log); Python's own writes to stderr are the console's the rest
  of the time.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The run folder's file of Ray's lines.
RAY_LOG_FILE = "ray.log"
#: Ray's Python loggers (both write to the console and do not propagate).
RAY_LOGGERS = ("ray", "ray.data")
#: Ray's own line format.
LINE_FORMAT = "%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s"
#: ragtest's own lines (e.g. where Ray keeps its workers' output) in the file of the stage running, nowhere else.
logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)
logger.propagate = False


def writes_to_console(handler: logging.Handler) -> bool:
    """A handler of Ray's loggers that writes to a stream rather than a file: Ray's own `PlainRayHandler` writes to
    the `sys.stderr` of the moment Ray was imported, which need not be today's (a replaced or closed stream)."""
    plain_ray = type(handler).__name__ == "PlainRayHandler"
    return not isinstance(handler, logging.FileHandler) and (isinstance(handler, logging.StreamHandler) or plain_ray)


class CountingFileHandler(logging.FileHandler):
    """A file handler that counts the errors it wrote (so the console can say the file holds some), each record
    once however many of the loggers it passes through hold the handler."""

    error_count = 0
    last: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record is self.last:
            return
        self.last = record
        if record.levelno >= logging.ERROR:
            self.error_count += 1
        super().emit(record)


@dataclass(frozen=True)
class RayLog:
    """Where a run's Ray lines go: `path`, and the console too with `echo`."""

    path: Path
    echo: bool = False

    @contextmanager
    def captured(self) -> Iterator[None]:
        """Ray's Python loggers write to the file while the block runs (and, unless `echo`, not to the console); the
        console is told when they logged an error."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handler = CountingFileHandler(self.path, encoding="utf-8")
        handler.setLevel(logging.INFO)
        handler.setFormatter(logging.Formatter(LINE_FORMAT))
        try:
            with ExitStack() as undo:  # undone in reverse: each logger's handlers as they were, then the file closed
                undo.callback(handler.close)
                for target in map(logging.getLogger, (*RAY_LOGGERS, __name__)):
                    for console in [] if self.echo else [h for h in target.handlers if writes_to_console(h)]:
                        target.removeHandler(console)
                        undo.callback(target.addHandler, console)
                    target.addHandler(handler)
                    undo.callback(target.removeHandler, handler)
                yield
        finally:
            if handler.error_count and not self.echo:
                print(f"ragtest: Ray logged {handler.error_count} error(s): see {self.path}", file=sys.stderr)

    @contextmanager
    def native_stderr(self) -> Iterator[None]:
        """What is written to the process's stderr descriptor (fd 2) goes to the file while the block runs (unless
        `echo`). Keep the block short: Python's own writes to stderr go there too."""
        if self.echo:
            yield
            return
        sys.stderr.flush()
        saved = os.dup(2)
        with self.path.open("ab") as log:
            os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            with suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)

    def batches(self, dataset: Any, **options: Any) -> Iterator[dict[str, Any]]:
        """`dataset.iter_batches(**options)`, as each batch is done; what Ray's C++ core worker writes to stderr while
        the pipeline starts (it creates the actor pool then) goes to the file."""
        batches = iter(dataset.iter_batches(**options))
        with self.native_stderr():
            first = next(batches, None)
        if first is not None:
            yield first
        yield from batches
