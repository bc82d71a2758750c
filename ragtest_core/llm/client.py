"""The LLM runtime every stage calls through: adaptive concurrency, rate limits, retries, timeouts, cache,
usage.

Stages never call a chat model directly. They call `LLMClient.text` or `LLMClient.structured`, which either
return a value or raise an `LLMError` subclass whose message becomes the row's recorded reason. A permanent
error (bad key, unknown model, context too long) is sticky: every later call of the client raises it at once,
without a request, so a run stops fast and the pipeline can report it.

Per-call parameters (max_tokens, temperature) travel as invoke kwargs; the shared chat model is never mutated,
so concurrent calls cannot see each other's settings (ragas sets `n`/`temperature` on a shared model and races).

Structured calls use the provider's native structured output where it has one (`formats`); a provider that
rejects it gets the schema in the prompt from then on (remembered in the cache db). All calls of a client wait in
one priority queue (`limits.AdaptiveConcurrency`). A prompt kind whose first replies are all unusable is stopped
(`guard`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from ragtest_core.errors import LLMError, LLMOutputError, LLMPermanentError
from ragtest_core.llm.batch import BATCH_REPLY, BatchLineFailed, BatchRunner
from ragtest_core.llm.breaker import UnreachableBreaker, endpoint_of
from ragtest_core.llm.cache import ReplyCache, cache_key
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.errors import EmptyReplyError, FormatRejectedError, RefusalError, classify_error
from ragtest_core.llm.formats import (
    SETTING,
    format_key,
    initial_mode,
    is_format_rejection,
    native_kwargs,
)
from ragtest_core.llm.guard import FitnessGuard
from ragtest_core.llm.limits import (
    CALL_ORDER,
    REPEAT,
    AdaptiveConcurrency,
    ConcurrencyLimit,
    QueueKey,
    RateLimits,
    RequestLimits,
)
from ragtest_core.llm.loop import on_io_loop
from ragtest_core.llm.messages import Prompt, structured_messages, to_messages, with_instructions
from ragtest_core.llm.parsing import parse_structured, schema_instructions
from ragtest_core.llm.replies import (
    finish_reason,
    is_rate_limit,
    message_dict,
    read_with,
    reply_text,
    reply_usage,
)
from ragtest_core.llm.usage import UsageTracker, estimate_tokens

T = TypeVar("T", bound=BaseModel)
logger = logging.getLogger(__name__)
__all__ = ["LLMClient", "LLMConfig", "Prompt", "reply_text", "to_messages", "with_instructions"]


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
        self.concurrency: ConcurrencyLimit = concurrency or AdaptiveConcurrency(
            self.config.max_concurrency,
            floor=self.config.min_concurrency if self.config.adaptive else self.config.max_concurrency,
        )
        self.limits: RequestLimits = limits or RateLimits.make(
            self.config.requests_per_second, self.config.tokens_per_minute
        )
        self.fatal: LLMPermanentError | None = None
        self.breaker = UnreachableBreaker(model_id, endpoint_of(model))
        self.guard = FitnessGuard(model_id)
        self.usage.concurrency = self.config.max_concurrency
        #: "native" or "prompt": how structured calls ask for JSON now (see `LLMConfig.structured_output`).
        remembered = self.cache.get_setting(model_id, SETTING) if self.cache is not None else None
        self.structured_mode = initial_mode(self.config.structured_output, model, remembered)
        self._pending: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[str]]] = {}

    def native_format(self, schema: type[BaseModel]) -> dict[str, Any] | None:
        """The invoke keyword asking for `schema` natively, or None when the schema goes into the prompt."""
        return native_kwargs(self.model, schema) if self.structured_mode == "native" else None

    def _fall_back_to_prompt(self, reason: str) -> None:
        if self.structured_mode == "prompt":
            return
        self.structured_mode = "prompt"
        logger.warning("%s rejected native structured output (%s): the schema goes into the prompt", self.model_id,
                       reason)  # fmt: skip
        if self.cache is not None:
            self.cache.put_setting(self.model_id, SETTING, "prompt")

    async def text(
        self,
        prompt: Prompt,
        *,
        stage: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
        priority: int = 0,
    ) -> str:
        """The model's reply text. Cached by content; retried on transient errors; raises LLMError."""
        messages = to_messages(prompt)
        return await self._call(
            messages,
            stage=stage,
            max_tokens=max_tokens or self.config.max_tokens,
            temperature=temperature,
            priority=priority,
        )

    async def structured(
        self,
        prompt: Prompt,
        schema: type[T],
        *,
        stage: str,
        temperature: float | None = None,
        priority: int = 0,
        fallback: Callable[[str], T | None] | None = None,
    ) -> T:
        """A reply parsed and validated against `schema`; one repair round when the first reply does not parse.

        `priority`: calls with a higher one leave the queue first (give it to a call that others wait for).
        `fallback`: a stage's own reading of a reply that is not the JSON asked for (tried on both replies after
        the repair round failed). Raises `LLMOutputError`, or `ModelUnfitError` once the label's first replies
        were all unusable (see `guard`)."""
        self.guard.check(stage)
        base = to_messages(prompt)
        native = self.native_format(schema)
        try:
            return await self._structured(base, schema, stage, temperature, priority, native, fallback)
        except FormatRejectedError as exc:
            if self.config.structured_output == "native":
                raise LLMPermanentError(f"native structured output was rejected: {exc}") from exc
            self._fall_back_to_prompt(str(exc))
            return await self._structured(base, schema, stage, temperature, priority, None, fallback)

    async def _structured(
        self,
        base: list[BaseMessage],
        schema: type[T],
        stage: str,
        temperature: float | None,
        priority: int,
        native: dict[str, Any] | None,
        fallback: Callable[[str], T | None] | None,
    ) -> T:
        messages = structured_messages(base, schema, native is not None)

        async def ask(prompt: list[BaseMessage], rank: int) -> str:
            try:
                return await self._call(
                    prompt,
                    stage=stage,
                    max_tokens=self.config.max_tokens,
                    temperature=temperature,
                    priority=rank,
                    extra=native,
                )
            except RefusalError as exc:
                self.usage.record_failure(stage)
                self.guard.failed(stage, exc.refusal, "refused")
                raise

        reply = await ask(messages, priority)
        try:
            value = parse_structured(reply, schema)
        except LLMOutputError as first_error:
            repair = [
                *messages,
                AIMessage(content=reply),
                HumanMessage(
                    content=f"That reply could not be used: {first_error}. "
                    f"Reply again with the JSON object only.\n{schema_instructions(schema)}"
                ),
            ]
            second = await ask(repair, priority + 1)  # started work finishes first
            try:
                value = parse_structured(second, schema)
            except LLMOutputError as exc:
                read = read_with(fallback, reply, second)
                if read is None:
                    self.usage.record_failure(stage)
                    self.guard.failed(stage, reply, str(exc))
                    raise LLMOutputError(f"unparseable judgement after one repair: {exc}") from exc
                value = read
        self.guard.succeeded(stage)
        return value

    async def _call(
        self,
        messages: list[BaseMessage],
        *,
        stage: str,
        max_tokens: int | None,
        temperature: float | None,
        priority: int = 0,
        extra: dict[str, Any] | None = None,
    ) -> str:
        """A cached reply, or one call; identical calls in flight at once share one request. `extra`: invoke
        keywords (native structured output)."""
        if self.fatal is not None:
            raise LLMPermanentError(str(self.fatal))
        params: dict[str, Any] = {
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": max_tokens,
        }
        if extra:
            params["format"] = format_key(extra)
        if REPEAT.get():
            params["repeat"] = REPEAT.get()
        key = cache_key(self.model_id, [message_dict(m) for m in messages], params)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.usage.record_cache_hit(stage)
            return hit[0]
        loop = asyncio.get_running_loop()
        pending = self._pending.get(key)
        if pending is not None and pending[0] is loop:
            self.usage.record_cache_hit(stage)
            return await asyncio.shield(pending[1])
        future: asyncio.Future[str] = loop.create_future()
        self._pending[key] = (loop, future)
        try:
            call_kwargs = {} if temperature is None else {"temperature": temperature}
            call_kwargs.update(extra or {})
            queue_key: QueueKey = (-priority, CALL_ORDER.get())
            reply = await on_io_loop(
                self._call_and_store(key, messages, stage, max_tokens, call_kwargs, queue_key, bool(extra))
            )
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

    async def _call_and_store(
        self,
        key: str,
        messages: list[BaseMessage],
        stage: str,
        max_tokens: int | None,
        call_kwargs: dict[str, Any],
        queue_key: QueueKey,
        native: bool,
    ) -> str:
        """Retries and the cache write run on the I/O loop: a reply is stored the moment it arrives, even while
        the stage's own loop is busy with CPU work, so a killed run loses only the calls in flight."""
        reply, usage = await self._call_with_retries(messages, stage, max_tokens, call_kwargs, queue_key, native, key)
        if self.cache is not None and reply.strip():  # an empty reply is a provider glitch: ask again next run
            self.cache.put(key, self.model_id, reply, usage)
        return reply

    async def _call_with_retries(
        self,
        messages: list[BaseMessage],
        stage: str,
        max_tokens: int | None,
        call_kwargs: dict[str, Any],
        queue_key: QueueKey,
        native: bool,
        key: str = "",
    ) -> tuple[str, dict[str, int]]:
        attempt = 0
        truncation_retried = False
        batch_key = key if self.batch is not None else None  # batch mode: the first attempt goes in a batch
        while True:
            try:
                batched, batch_key = batch_key, None
                message = await self._invoke_once(messages, stage, max_tokens, call_kwargs, queue_key, batched)
                reply = reply_text(message)
                if refusal := message.additional_kwargs.get("refusal"):
                    self._record_usage(stage, messages, message, reply)
                    raise RefusalError(str(refusal))
                if not reply.strip() and attempt < self.config.max_retries:  # an empty 200: ask again
                    self._record_usage(stage, messages, message, reply)
                    raise EmptyReplyError("the model returned an empty reply")
            except (LLMPermanentError, RefusalError):
                raise
            except Exception as exc:
                failure = classify_error(exc, timeout_s=self.config.timeout_s)
                if native and is_format_rejection(exc, failure):
                    raise FormatRejectedError(failure.message) from exc
                if failure.permanent:
                    self.usage.record_failure(stage)
                    self.fatal = self.fatal or LLMPermanentError(failure.message)
                    raise LLMPermanentError(failure.message) from exc
                unreachable = self.fatal or self.breaker.failed(failure.message)
                if unreachable is not None:  # tripped: the calls still waiting fail at once
                    self.fatal = unreachable
                    self.usage.record_failure(stage)
                    raise LLMPermanentError(str(unreachable)) from exc
                attempt += 1
                if attempt > self.config.max_retries:
                    self.usage.record_failure(stage)
                    raise LLMError(f"{failure.message} (gave up after {attempt} attempts)") from exc
                self.usage.record_retry(stage, rate_limited=is_rate_limit(failure))
                await asyncio.sleep(self.config.backoff_s(attempt, failure.retry_after_s))
                continue
            self.breaker.succeeded()
            usage = self._record_usage(stage, messages, message, reply)
            if finish_reason(message) == "length" and not truncation_retried:
                truncation_retried = True
                max_tokens = max(self.config.truncation_max_tokens, 2 * (max_tokens or 1024))
                self.usage.record_retry(stage)
                continue
            return reply, usage

    @property
    def endpoint(self) -> str:
        """Where the model is served (its base URL), or the provider's default."""
        return self.breaker.endpoint

    async def _invoke_once(
        self,
        messages: list[BaseMessage],
        stage: str,
        max_tokens: int | None,
        call_kwargs: dict[str, Any],
        queue_key: QueueKey,
        batch_key: str | None = None,
    ) -> AIMessage:
        """One attempt, run on the shared I/O loop whatever loop the caller is on (see ragtest_core.llm.loop). With
        `batch_key`, through a provider batch (no concurrency slot, no rate limit: the provider paces batches); a
        line that failed is sent online at once."""
        if batch_key is not None and self.batch is not None:
            kwargs = dict(call_kwargs)
            if max_tokens is not None:
                kwargs["max_tokens"] = max_tokens
            try:
                return await on_io_loop(self.batch.complete(batch_key, messages, kwargs))
            except BatchLineFailed as exc:
                self.usage.record_batch_failure(stage)
                logger.info("%s: batch line failed (%s); sending it online", stage, exc)
        return await on_io_loop(self._invoke_on_io_loop(messages, stage, max_tokens, call_kwargs, queue_key))

    async def _invoke_on_io_loop(
        self,
        messages: list[BaseMessage],
        stage: str,
        max_tokens: int | None,
        call_kwargs: dict[str, Any],
        queue_key: QueueKey,
    ) -> AIMessage:
        epoch = await self.concurrency.acquire(queue_key)
        started: float | None = None
        try:
            await self.limits.acquire(sum(estimate_tokens(str(m.content)) for m in messages))
            if self.fatal is not None:  # another call failed for good while this one waited
                raise LLMPermanentError(str(self.fatal))
            self.guard.check(stage)  # the prompt kind was stopped while this call waited
            kwargs: dict[str, Any] = dict(call_kwargs)
            if max_tokens is not None:
                kwargs["max_tokens"] = max_tokens
            started = time.monotonic()
            call = self.model.ainvoke(messages, **kwargs)
            result = await asyncio.wait_for(call, timeout=self.config.timeout_s)
        except Exception as exc:
            failure = classify_error(exc, timeout_s=self.config.timeout_s)
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

    def _record_usage(self, stage: str, messages: list[BaseMessage], message: AIMessage, reply: str) -> dict[str, int]:
        usage, estimated = reply_usage(messages, message, reply)
        batched = bool(message.response_metadata.get(BATCH_REPLY))
        self.usage.record_call(stage, usage["input_tokens"], usage["output_tokens"], estimated, batch=batched)
        return usage
