"""The LLM runtime every stage calls through: adaptive concurrency, rate limits, retries, timeouts, cache, usage.

Stages never call a chat model directly. They call `LLMClient.text` or `LLMClient.structured`, which either
return a value or raise an `LLMError` subclass whose message becomes the row's recorded reason. A permanent
error (bad key, unknown model, context too long) is sticky: every later call of the client raises it at once,
without a request, so a run stops fast and the pipeline can report it.

A call is one `LLMRequest` (messages, model parameters, queue place, repeat). Its path, one level each:
`text` / `structured` build it (`structured` asks for JSON natively where the provider takes a schema, and repairs
a reply that does not parse: `_parsed`), `_complete` (the cache, or an identical call in flight), `_with_retries`
(the one retry loop, on the I/O loop), `_send` (one attempt: a queue slot, the rate limits, the timeout; in batch
mode the first attempt goes through the provider's Batch API).

Model parameters travel as invoke keywords; the shared chat model is never mutated, so concurrent calls cannot see
each other's settings (ragas sets `n`/`temperature` on a shared model and races). What enters a cache key is
`LLMRequest.cache_key`, and nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from ragtest_core.errors import LLMError, LLMOutputError, LLMPermanentError
from ragtest_core.llm.batch import BATCH_REPLY, BatchLineFailed, BatchRunner
from ragtest_core.llm.breaker import UnreachableBreaker, endpoint_of
from ragtest_core.llm.cache import ReplyCache
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.errors import CallFailure, EmptyReplyError, FormatRejectedError, RefusalError, classify_error
from ragtest_core.llm.formats import SETTING, initial_mode, is_format_rejection, native_kwargs
from ragtest_core.llm.guard import FitnessGuard
from ragtest_core.llm.limits import ConcurrencyLimit, RateLimits, RequestLimits, concurrency_of
from ragtest_core.llm.loop import on_io_loop
from ragtest_core.llm.messages import Prompt, structured_messages, to_messages
from ragtest_core.llm.parsing import parse_structured, schema_instructions
from ragtest_core.llm.replies import finish_reason, is_rate_limit, reply_text
from ragtest_core.llm.request import LLMRequest
from ragtest_core.llm.usage import UsageTracker, estimate_tokens

T = TypeVar("T", bound=BaseModel)
logger = logging.getLogger(__name__)
__all__ = ["LLMClient", "LLMConfig", "LLMRequest", "Prompt", "backoff_s", "reply_text"]

#: The longest wait between two attempts, and the longest Retry-After honoured.
BACKOFF_MAX_S = 60.0
RETRY_AFTER_MAX_S = 300.0
#: A reply cut off at its max_tokens is asked again once with at least this many.
TRUNCATION_MAX_TOKENS = 4096


def backoff_s(config: LLMConfig, attempt: int, retry_after_s: float | None) -> float:
    """How long to wait before retry `attempt` (1, 2, ...): the server's Retry-After (capped), else a jittered
    exponential backoff from `config.backoff`."""
    if retry_after_s is not None:
        return min(RETRY_AFTER_MAX_S, retry_after_s) + random.uniform(0, 0.1)
    ceiling = min(BACKOFF_MAX_S, config.backoff * 2 ** (attempt - 1))
    return random.uniform(ceiling / 2, ceiling)


class LLMClient:
    """One model behind the runtime rules of docs/design.md. Safe to share between concurrent tasks."""

    def __init__(
        self,
        model: BaseChatModel,
        model_id: str,
        config: LLMConfig | None = None,
        cache: ReplyCache | None = None,
        usage: UsageTracker | None = None,
        batch: BatchRunner | None = None,
        concurrency: ConcurrencyLimit | None = None,
        limits: RequestLimits | None = None,
    ) -> None:
        """`concurrency`, `limits` and `cache` shared with other clients (the workers of a distributed run keep one
        budget) replace the client's own."""
        self.model = model
        self.model_id = model_id
        self.config = config or LLMConfig()
        self.cache = cache
        self.usage = usage or UsageTracker(model_id=model_id)
        #: Batch mode: first attempts go to the provider's Batch API (`ragtest_core.llm.batch`).
        self.batch = batch
        self.concurrency: ConcurrencyLimit = concurrency or concurrency_of(self.config)
        self.limits: RequestLimits = limits or RateLimits.of(self.config)
        self.fatal: LLMPermanentError | None = None
        self.breaker = UnreachableBreaker(model_id, endpoint_of(model))
        self.guard = FitnessGuard(model_id)
        self.usage.concurrency = self.config.concurrency
        #: "native" or "prompt": how structured calls ask for JSON now (see `LLMConfig.structured_output`).
        remembered = self.cache.get_setting(model_id, SETTING) if self.cache is not None else None
        self.structured_mode = initial_mode(self.config.structured_output, model, remembered)
        self._pending: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[str]]] = {}

    async def text(
        self, prompt: Prompt, *, stage: str, max_tokens: int | None = None, temperature: float | None = None
    ) -> str:
        """The model's reply text. Cached by content; retried on transient errors; raises LLMError."""
        return await self._complete(LLMRequest(tuple(to_messages(prompt)), stage, temperature, max_tokens))

    async def structured(
        self,
        prompt: Prompt,
        schema: type[T],
        *,
        stage: str,
        priority: int = 0,
        order: int = 0,
        repeat: int = 0,
        fallback: Callable[[str], T | None] | None = None,
    ) -> T:
        """A reply parsed and validated against `schema`; one repair round when the first reply does not parse.

        `priority`: calls with a higher one leave the queue first (give it to a call that others wait for); `order`:
        among equal priorities, a lower one first (the row a call serves). `repeat`: which repeat of a judgement this
        is (repeat r > 0 is asked again, with its own cache entry). `fallback`: a stage's own reading of a reply that
        is not the JSON asked for (tried on both replies after the repair round failed). Raises `LLMOutputError`, or
        `ModelUnfitError` once the label's first replies were all unusable (see `guard`)."""
        self.guard.check(stage)
        messages = tuple(to_messages(prompt))
        request = LLMRequest(messages, stage, priority=priority, order=order, repeat=repeat)
        while True:
            native = native_kwargs(self.model, schema) if self.structured_mode == "native" else None
            asked = tuple(structured_messages(list(messages), schema, native is not None))
            try:
                return await self._parsed(replace(request, messages=asked, native=native), schema, fallback)
            except FormatRejectedError as exc:
                if self.config.structured_output == "native":
                    raise LLMPermanentError(f"native structured output was rejected: {exc}") from exc
                self._fall_back_to_prompt(str(exc))  # and ask again, the schema in the prompt
            except RefusalError as exc:
                self.usage.count(stage, failures=1)
                self.guard.failed(stage, exc.refusal, "refused")
                raise

    def _fall_back_to_prompt(self, reason: str) -> None:
        if self.structured_mode == "prompt":
            return
        self.structured_mode = "prompt"
        logger.warning("%s rejected native structured output (%s): the schema goes into the prompt", self.model_id,
                       reason)  # fmt: skip
        if self.cache is not None:
            self.cache.put_setting(self.model_id, SETTING, "prompt")

    async def _parsed(self, request: LLMRequest, schema: type[T], fallback: Callable[[str], T | None] | None) -> T:
        """The reply to `request` as `schema`, after one repair round when needed (then the stage's own reader,
        `fallback`); an unusable reply counts against the prompt kind (`guard`)."""
        reply = await self._complete(request)
        try:
            value = parse_structured(reply, schema)
        except LLMOutputError as first_error:
            complaint = f"That reply could not be used: {first_error}. Reply again with the JSON object only."
            repair = (AIMessage(content=reply), HumanMessage(content=f"{complaint}\n{schema_instructions(schema)}"))
            # started work goes first
            second = await self._complete(
                replace(request, messages=request.messages + repair, priority=request.priority + 1)
            )
            try:
                value = parse_structured(second, schema)
            except LLMOutputError as exc:
                read = next((v for v in map(fallback, (reply, second)) if v is not None), None) if fallback else None
                if read is None:
                    self.usage.count(request.stage, failures=1)
                    self.guard.failed(request.stage, reply, str(exc))
                    raise LLMOutputError(f"unparseable judgement after one repair: {exc}") from exc
                value = read
        self.guard.succeeded(request.stage)
        return value

    async def _complete(self, request: LLMRequest) -> str:
        """The reply from the cache, or from an identical call in flight on this loop (they share one request), or
        from the retry loop run on the I/O loop (`ragtest_core.llm.loop`)."""
        if self.fatal is not None:
            raise LLMPermanentError(str(self.fatal))
        key = request.cache_key(self.model_id, self.config.temperature)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.usage.count(request.stage, cache_hits=1)
            return hit[0]
        loop = asyncio.get_running_loop()
        pending = self._pending.get(key)
        if pending is not None and pending[0] is loop:
            self.usage.count(request.stage, cache_hits=1)
            return await asyncio.shield(pending[1])
        future: asyncio.Future[str] = loop.create_future()
        self._pending[key] = (loop, future)
        try:
            reply = await on_io_loop(self._with_retries(request, key))
            future.set_result(reply)
            return reply
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "exception was never retrieved" warning when nobody shares it
            raise
        finally:
            self._pending.pop(key, None)

    async def _with_retries(self, request: LLMRequest, key: str) -> str:
        """The one retry loop, on the I/O loop: the reply is stored under `key` the moment it arrives, even while
        the stage's own loop is busy with CPU work, so a killed run loses only the calls in flight."""
        failures = 0
        extended = False  # a cut-off reply was asked again with more room
        batched = self.batch is not None  # batch mode: the first attempt goes in a batch
        while True:
            batch_key, batched = (key if batched else None), False
            try:
                message = await self._send(request, batch_key)
                reply, usage = self._reply_of(request, message, retry_empty=failures < self.config.retries)
            except (LLMPermanentError, RefusalError):
                raise
            except Exception as exc:
                failure = self._failure(request, exc)
                failures += 1
                if failures > self.config.retries:
                    self.usage.count(request.stage, failures=1)
                    raise LLMError(f"{failure.message} (gave up after {failures} attempts)") from exc
                self.usage.count(request.stage, retries=1, rate_limited=int(is_rate_limit(failure)))
                await asyncio.sleep(backoff_s(self.config, failures, failure.retry_after_s))
                continue
            if finish_reason(message) == "length" and not extended:
                extended = True
                request = replace(request, max_tokens=max(TRUNCATION_MAX_TOKENS, 2 * (request.max_tokens or 1024)))
                self.usage.count(request.stage, retries=1)
                continue
            if self.cache is not None and reply.strip():  # an empty reply is a provider glitch: ask again next run
                self.cache.put(key, self.model_id, reply, usage)
            return reply

    async def _send(self, request: LLMRequest, batch_key: str | None) -> AIMessage:
        """One attempt. With `batch_key`, through a provider batch (no concurrency slot, no rate limit: the provider
        paces batches); a line that failed is sent online at once."""
        if batch_key is not None and self.batch is not None:
            try:
                return await self.batch.complete(batch_key, list(request.messages), request.invoke_kwargs())
            except BatchLineFailed as exc:
                self.usage.count(request.stage, batch_failed_lines=1)
                logger.info("%s: batch line failed (%s); sending it online", request.stage, exc)
        epoch = await self.concurrency.acquire((-request.priority, request.order))
        started: float | None = None
        try:
            await self.limits.acquire(request.prompt_tokens())
            if self.fatal is not None:  # another call failed for good while this one waited
                raise LLMPermanentError(str(self.fatal))
            self.guard.check(request.stage)  # the prompt kind was stopped while this call waited
            started = time.monotonic()
            call = self.model.ainvoke(list(request.messages), **request.invoke_kwargs())
            result = await asyncio.wait_for(call, timeout=self.config.timeout)
        except Exception as exc:
            failure = classify_error(exc, timeout_s=self.config.timeout)
            if is_rate_limit(failure):
                self.concurrency.on_rate_limited(epoch, failure.retry_after_s)
            raise
        finally:
            if started is not None:
                self.usage.record_request(started, time.monotonic())
            await self.concurrency.release()
        self.concurrency.on_success()
        if not isinstance(result, AIMessage):
            raise LLMOutputError(f"expected an AIMessage, got {type(result).__name__}")
        return result

    def _reply_of(self, request: LLMRequest, message: AIMessage, retry_empty: bool) -> tuple[str, dict[str, int]]:
        """The reply's text and tokens, counted; a refusal raises `RefusalError`, an empty reply `EmptyReplyError`
        while retries are left."""
        reply, meta = reply_text(message), message.usage_metadata  # no usage reported: estimated
        inputs = int(meta.get("input_tokens", 0)) if meta else request.prompt_tokens()
        outputs = int(meta.get("output_tokens", 0)) if meta else estimate_tokens(reply)
        batched = bool(message.response_metadata.get(BATCH_REPLY))
        self.usage.record_call(request.stage, inputs, outputs, not meta, batch=batched)
        if refusal := message.additional_kwargs.get("refusal"):
            raise RefusalError(str(refusal))
        if not reply.strip() and retry_empty:  # an empty 200: ask again
            raise EmptyReplyError("the model returned an empty reply")
        self.breaker.succeeded()
        return reply, {"input_tokens": inputs, "output_tokens": outputs}

    def _failure(self, request: LLMRequest, exc: Exception) -> CallFailure:
        """What went wrong in an attempt, when retrying can help; else the error to stop with is raised (a permanent
        error sticks to the client; a rejected native format makes `structured` ask with the schema in the prompt)."""
        failure = classify_error(exc, timeout_s=self.config.timeout)
        if request.native and is_format_rejection(exc, failure):
            raise FormatRejectedError(failure.message) from exc
        if failure.permanent:
            self.usage.count(request.stage, failures=1)
            self.fatal = self.fatal or LLMPermanentError(failure.message)
            raise LLMPermanentError(failure.message) from exc
        unreachable = self.fatal or self.breaker.failed(failure.message)
        if unreachable is not None:  # tripped: the calls still waiting fail at once
            self.fatal = unreachable
            self.usage.count(request.stage, failures=1)
            raise LLMPermanentError(str(unreachable)) from exc
        return failure
