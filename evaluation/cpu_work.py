"""The LLM judge's CPU work (embedding, similarities) in one background thread.

The event loop that reads replies and sends each row's next calls must not wait for a model forward pass: a row's
faithfulness verdicts cannot be asked while the loop embeds another row's generated questions. Jobs run in one
worker thread, in order (so the embedder is never used by two threads at once), and texts to embed are pooled: a
job first embeds, in one batch, every text queued by the jobs submitted so far. The worker yields to the thread that
sends the calls: it runs torch on one thread and at a lower OS priority (Linux: the thread's nice value), since a
forward pass competing for a small machine's cores delays every request's sending and reading (measured on 2 busy
cores: calls waited for a CPU longer than for the provider, and 1 s timeouts fired).
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
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


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch's intra-op threads set to one while the block runs (when torch is loaded), then restored."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


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
        with self._lock:
            texts, self._pending = sorted(self._pending, key=len), set()
        with one_torch_thread():
            if texts:
                self.embedder.embed(texts)
            return job()

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False)
