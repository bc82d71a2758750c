"""One long-lived event loop, in a daemon thread, on which every model call runs.

Provider SDKs keep pooled HTTP connections bound to the event loop that opened them, and langchain-openai shares
one cached `httpx.AsyncClient` per (base URL, timeout) across the whole process. Each `asyncio.run` (which
`run_sync` does once per stage) makes a new loop, so the second stage's first calls would fail with "Event loop
is closed" after the server had already done (and billed) the work. Running all model I/O on this one loop keeps
connections, semaphores and rate limiters bound to a loop that never closes, whatever loop the caller runs.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def io_loop() -> asyncio.AbstractEventLoop:
    """The process-wide LLM I/O loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()  # what is scheduled on it before it starts runs once it does
            threading.Thread(target=_loop.run_forever, name="ragtest-llm-io", daemon=True).start()
        return _loop


async def on_io_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await `coroutine` on the I/O loop from any loop; cancelling the caller cancels it there too."""
    loop = io_loop()
    if asyncio.get_running_loop() is loop:
        return await coroutine
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))
