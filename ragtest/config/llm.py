"""Which LLM to use (none: offline), how its calls are made, its cache, prices and batch mode."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ragtest.config.parsing import CACHE_DIR_ENV, PRICES_ENV
from ragtest.settings import Opt, Section
from ragtest_core.llm import LLMConfig
from ragtest_core.llm.config import StructuredOutput

_RUNTIME = LLMConfig()


class LLMSettings(Section):
    """Which LLM to use (none: offline) and how its calls are made."""

    group = "llm"

    spec: Annotated[
        str | None,
        Field(
            description="LangChain model spec (openai:gpt-4o-mini, ollama:llama3.1, ...), or the model's name on "
            "--llm-base-url"
        ),
        Opt(keyword="llm", metavar="SPEC"),
    ] = None
    base_url: Annotated[
        str | None,
        Field(description="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"),
        Opt(keyword="llm_base_url", metavar="URL"),
    ] = None
    max_concurrency: Annotated[
        int,
        Field(ge=1, description="LLM calls in flight at most; halved on a 429, raised again on success"),
        Opt(keyword="llm_concurrency"),
    ] = _RUNTIME.max_concurrency
    fixed_concurrency: Annotated[
        bool,
        Field(description="keep --llm-concurrency fixed (no adaptive cut on 429s)"),
        Opt(keyword="llm_fixed_concurrency"),
    ] = not _RUNTIME.adaptive
    timeout_s: Annotated[
        float, Field(gt=0, description="seconds per LLM call"), Opt(keyword="llm_timeout_s", flag="--llm-timeout")
    ] = _RUNTIME.timeout_s
    requests_per_second: Annotated[
        float | None, Field(gt=0, description="LLM requests per second at most"), Opt(keyword="llm_rps")
    ] = _RUNTIME.requests_per_second
    tokens_per_minute: Annotated[
        float | None,
        Field(gt=0, description="LLM prompt tokens per minute at most (estimated before sending)"),
        Opt(keyword="llm_tpm"),
    ] = _RUNTIME.tokens_per_minute
    max_retries: Annotated[int, Field(ge=0, description="retries of a failed LLM call"), Opt(keyword="llm_retries")] = (
        _RUNTIME.max_retries
    )
    backoff_base_s: Annotated[
        float,
        Field(ge=0, description="first retry delay in seconds, doubled each retry, jittered"),
        Opt(keyword="llm_backoff_s", flag="--llm-backoff"),
    ] = _RUNTIME.backoff_base_s
    temperature: Annotated[
        float, Field(ge=0, description="sampling temperature of every LLM call"), Opt(keyword="llm_temperature")
    ] = _RUNTIME.temperature
    structured_output: Annotated[
        StructuredOutput,
        Field(
            description="JSON replies: the provider's native schema parameter, falling back to the schema in the "
            "prompt if the server rejects it (auto), always native, or always in the prompt"
        ),
        Opt(keyword="llm_structured_output"),
    ] = _RUNTIME.structured_output
    use_cache: Annotated[
        bool,
        Field(description="read and write the LLM reply cache (a re-run repeats no paid call)"),
        Opt(flag="--cache"),
    ] = True
    cache_dir: Annotated[
        str | None,
        Field(description="keep the LLM cache here instead of in the run directory"),
        Opt(env=CACHE_DIR_ENV, metavar="DIR"),
    ] = None
    prices_file: Annotated[
        str | None,
        Field(description="JSON or TOML price table, model -> [input, output] USD per million tokens"),
        Opt(flag="--prices", env=PRICES_ENV, metavar="FILE"),
    ] = None
    batch: Annotated[
        bool,
        Field(
            description="send LLM calls through the provider's Batch API (OpenAI): about half the price, results "
            "within its completion window; the batch id is kept in the run folder, so running the same command "
            "again resumes a batch instead of paying twice"
        ),
        Opt(keyword="llm_batch"),
    ] = _RUNTIME.batch
    batch_poll_s: Annotated[
        float,
        Field(gt=0, description="first wait between two polls of a batch, growing 1.5 times a poll"),
        Opt(keyword="llm_batch_poll_s", flag="--llm-batch-poll"),
    ] = _RUNTIME.batch_poll_s
    batch_poll_max_s: Annotated[
        float,
        Field(gt=0, description="longest wait between two polls of a batch"),
        Opt(keyword="llm_batch_poll_max_s", flag="--llm-batch-poll-max"),
    ] = _RUNTIME.batch_poll_max_s
    batch_retry: Annotated[
        Literal["online", "batch"],
        Field(description="where a batch line that failed goes: online at once, or into the next batch first"),
        Opt(keyword="llm_batch_retry"),
    ] = _RUNTIME.batch_retry

    @property
    def configured(self) -> bool:
        return bool(self.spec or self.base_url)

    def resolved_cache_dir(self) -> str | None:
        """--cache-dir, else $RAGTEST_CACHE_DIR (a user-level cache shared by runs), else None (the run dir)."""
        return self.cache_dir or None

    def runtime(self) -> LLMConfig:
        """The LLM runtime's settings (`ragtest_core.llm.LLMConfig`) these settings name."""
        return LLMConfig(
            max_concurrency=self.max_concurrency,
            adaptive=not self.fixed_concurrency,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            backoff_base_s=self.backoff_base_s,
            requests_per_second=self.requests_per_second,
            tokens_per_minute=self.tokens_per_minute,
            temperature=self.temperature,
            structured_output=self.structured_output,
            batch=self.batch,
            batch_poll_s=self.batch_poll_s,
            batch_poll_max_s=self.batch_poll_max_s,
            batch_retry=self.batch_retry,
        )
