"""The LLM judge's CPU work (embedding, similarities) in one background thread (docs/design.md, "The LLM runtime").

Jobs run in order in one worker thread (so the embedder is never used by two threads at once), and a job first
embeds, in one batch, every text queued by the jobs submitted so far. The worker yields to the thread that sends the
calls: one torch thread, at a lower OS priority (Linux: the thread's nice value).
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ragtest_core.embeddings import Embedder

R = TypeVar("R")


#: How much lower than the sending thread the worker runs (nice steps).
BACKGROUND_NICE = 10


def lower_thread_priority() -> None:
    """Raise the calling thread's nice value by `BACKGROUND_NICE` where the OS allows (Linux); else nothing."""
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICE)
    except (AttributeError, OSError):  # not Linux, or not permitted: the worker runs at normal priority
        pass


class CPUWorker:
    """Runs jobs in one background thread; `run(job, embed=texts)` embeds the pooled texts first."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    async def run(self, job: Callable[[], R], embed: Iterable[str] = ()) -> R:
        """The job's result, computed in the worker after every pooled text (these included) is embedded."""
        with self._lock:
            self._pending.update(t for t in embed if t)
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="ragtest-judge-cpu", initializer=lower_thread_priority
                )
            executor = self._executor
        return await asyncio.get_running_loop().run_in_executor(executor, self._job, job)

    def _job(self, job: Callable[[], R]) -> R:
        """The pooled texts embedded, then the job, with torch (when loaded) on one intra-op thread meanwhile."""
        with self._lock:
            texts, self._pending = sorted(self._pending, key=len), set()
        torch = sys.modules.get("torch")
        before = torch.get_num_threads() if torch is not None else 1
        if torch is not None:
            torch.set_num_threads(1)
        try:
            if texts:
                self.embedder.embed(texts)
            return job()
        finally:
            if torch is not None:
                torch.set_num_threads(before)

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False)
