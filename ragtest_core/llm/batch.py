"""Batch mode (`--llm-batch`, docs/llm.md): a client's calls go to the provider's Batch API instead of one request
each. `BatchRunner.complete` is what a client awaits instead of an online request: calls arriving together are
collected until none has arrived for `SETTLE_S`, then sent as one batch, recorded in the run folder's journal
(`batch_journal`), so that a killed process, run again, waits for its pending batches instead of paying again.
Replies are matched to the waiting calls by `custom_id` (the call's cache key) and go into the LLM cache; a line
that failed raises `BatchLineFailed` (the client then makes that call online, or first in the next batch).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage

from ragtest_core.errors import LLMPermanentError
from ragtest_core.llm.batch_journal import BatchJournal
from ragtest_core.llm.batch_openai import OpenAIBatches
from ragtest_core.llm.cache import ReplyCache
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.replies import finish_reason, reply_text

logger = logging.getLogger(__name__)
T = TypeVar("T")


#: `AIMessage.response_metadata` key naming the batch a reply came from (usage prices it at the batch rate).
BATCH_REPLY = "ragtest_batch_id"


class BatchLineFailed(Exception):
    """The provider returned an error for this call's line (or no line at all)."""


#: The provider's completion window (OpenAI accepts "24h").
WINDOW = "24h"
#: A batch is sent once no call has joined it for this long, or once it holds `MAX_REQUESTS`.
SETTLE_S = 1.0
MAX_REQUESTS = 50_000
#: Attempts of each Batch API request (upload, create, poll) on a transient error.
API_ATTEMPTS = 5


Outcome = AIMessage | str
Results = dict[str, Outcome]


class BatchRunner:
    """Collects calls into provider batches, resumes the run folder's pending batches, and hands out replies."""

    def __init__(
        self,
        provider: OpenAIBatches,
        journal: BatchJournal,
        config: LLMConfig | None = None,
        cache: ReplyCache | None = None,
        model_id: str = "",
    ) -> None:
        self.provider = provider
        self.journal = journal
        #: Polls start `config.batch_poll` apart and grow 1.5 times a poll up to `config.batch_poll_max`; a failed
        #: line goes online or into the next batch (`config.batch_retry`).
        self.config = config or LLMConfig()
        self.cache = cache
        self.model_id = model_id
        self.submitted = 0  # batches this runner created
        self.resumed = 0  # pending batches of an earlier process this runner waited for
        self._loading: asyncio.Task[None] | None = None
        self._key_batch: dict[str, asyncio.Future[str]] = {}
        self._open: dict[str, dict[str, Any]] = {}
        self._polls: dict[str, asyncio.Task[Results]] = {}
        self._retried: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def complete(self, key: str, messages: list[BaseMessage], kwargs: Mapping[str, Any]) -> AIMessage:
        """The reply to one call, through a batch; `BatchLineFailed` when its line failed."""
        if self._loading is None:
            self._loading = asyncio.ensure_future(self._load_journal())
        await asyncio.shield(self._loading)
        batch = self._key_batch.get(key) or self._enqueue(key, self.provider.request_body(messages, kwargs))
        outcome = (await asyncio.shield(self._poll(await asyncio.shield(batch)))).get(key)
        if isinstance(outcome, AIMessage):
            return outcome
        reason = outcome or "the batch returned no line for this call"
        if self.config.batch_retry == "batch" and key not in self._retried:
            self._retried.add(key)
            logger.info("batch line failed (%s): into the next batch", reason)
            self._key_batch.pop(key, None)
            return await self.complete(key, messages, kwargs)
        raise BatchLineFailed(reason)

    async def stop(self) -> None:
        """Stop sending and polling in this process (what a killed process leaves: the journal's pending batches)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in [*self._polls.values(), *self._tasks]:
            task.cancel()
        self._polls.clear()

    # -- collecting and sending ----------------------------------------------------------------------------------
    def _enqueue(self, key: str, body: dict[str, Any]) -> asyncio.Future[str]:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._key_batch[key] = future
        self._open[key] = body
        if self._timer is not None:
            self._timer.cancel()
        if len(self._open) >= MAX_REQUESTS:
            self._spawn(self._send())
        else:
            self._timer = asyncio.get_running_loop().call_later(SETTLE_S, self._send_later)
        return future

    def _send_later(self) -> None:
        self._timer = None
        self._spawn(self._send())

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self) -> None:
        """Upload the open calls as one request file, create the batch, record both at once."""
        if not self._open:
            return
        bodies, self._open = self._open, {}
        futures = {key: self._key_batch[key] for key in bodies}
        try:
            data = "".join(json.dumps(self.provider.line(k, b), ensure_ascii=False) + "\n" for k, b in bodies.items())
            file_id = await self._api("upload", lambda: self.provider.upload(data.encode("utf-8")))
            self.journal.uploaded(file_id, list(bodies))
            metadata = {"ragtest_calls": str(len(bodies))}
            batch_id = await self._api("create", lambda: self.provider.create(file_id, WINDOW, metadata))
            self.journal.created(file_id, batch_id)
            self.submitted += 1
            logger.info("submitted batch %s with %d calls", batch_id, len(bodies))
        except Exception as exc:
            for future in futures.values():
                if not future.done():
                    future.set_exception(exc)
                    future.exception()  # retrieved here: each waiting call re-raises it
            return
        for future in futures.values():
            if not future.done():
                future.set_result(batch_id)

    # -- resuming ------------------------------------------------------------------------------------------------
    async def _load_journal(self) -> None:
        """Once: map every call of the journal's pending batches to its batch (finding batches whose creation was
        not recorded by their request file)."""
        loop = asyncio.get_running_loop()
        for entry in self.journal.pending():
            batch_id = entry.batch_id
            if batch_id is None:
                batch_id = await self._api("find", lambda: self.provider.find_batch(entry.file_id))  # noqa: B023
                if batch_id is None:
                    continue  # uploaded, never created: the calls are sent again
                self.journal.created(entry.file_id, batch_id)
            future: asyncio.Future[str] = loop.create_future()
            future.set_result(batch_id)
            for key in entry.keys:
                self._key_batch.setdefault(key, future)
            self.resumed += 1
            logger.info("resuming batch %s (%d calls) from %s", batch_id, len(entry.keys), self.journal.path)

    # -- polling and reading back ------------------------------------------------------------------------------
    def _poll(self, batch_id: str) -> asyncio.Task[Results]:
        if batch_id not in self._polls:
            self._polls[batch_id] = asyncio.ensure_future(self._wait_and_read(batch_id))
        return self._polls[batch_id]

    async def _wait_and_read(self, batch_id: str) -> Results:
        delay = self.config.batch_poll
        while True:
            status = await self._api("poll", lambda: self.provider.retrieve(batch_id))
            if status.terminal:
                break
            await asyncio.sleep(delay * random.uniform(0.9, 1.1))
            delay = min(self.config.batch_poll_max, delay * 1.5)
        results: Results = {}
        for file_id in (status.output_file_id, status.error_file_id):
            if file_id:
                text = await self._api("read", lambda: self.provider.read_file(file_id))  # noqa: B023 - awaited at once
                for raw in text.splitlines():
                    if raw.strip():
                        key, outcome = self.provider.read_line(json.loads(raw))
                        if isinstance(outcome, AIMessage):
                            outcome.response_metadata[BATCH_REPLY] = batch_id
                        results[key] = outcome
                        self._cache(key, outcome)
        self.journal.finished(batch_id, status.status)
        failed = sum(1 for outcome in results.values() if not isinstance(outcome, AIMessage))
        logger.info("batch %s %s: %d replies, %d failed lines", batch_id, status.status, len(results), failed)
        return results

    def _cache(self, key: str, outcome: Outcome) -> None:
        """A clean reply goes into the LLM cache under its call's key, requested in this process or not."""
        if self.cache is None or not isinstance(outcome, AIMessage):
            return
        text = reply_text(outcome)
        if not text.strip() or outcome.additional_kwargs.get("refusal") or finish_reason(outcome) == "length":
            return
        meta: Mapping[str, Any] = outcome.usage_metadata or {}
        usage = {"input_tokens": int(meta.get("input_tokens", 0)), "output_tokens": int(meta.get("output_tokens", 0))}
        self.cache.put(key, self.model_id, text, usage)

    async def _api(self, what: str, request: Callable[[], Awaitable[T]]) -> T:
        """One Batch API request, retried with backoff on a transient error (a connection error, 429 or 5xx); a
        rejection (other 4xx) stops the run: batch mode would otherwise fall back, silently, to full-price calls."""
        attempt = 0
        while True:
            try:
                return await request()
            except Exception as exc:
                status = getattr(exc, "status_code", None)
                attempt += 1
                rejected = status is not None and 400 <= status < 500 and status != 429
                if rejected or attempt >= API_ATTEMPTS:
                    raise LLMPermanentError(f"the {self.provider.name} Batch API failed ({what}): {exc}") from exc
                logger.warning("Batch API %s failed (%s); retrying", what, exc)
                await asyncio.sleep(min(30.0, 0.5 * 2**attempt))
