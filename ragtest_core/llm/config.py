"""The LLM settings (`LLMConfig`): how calls are made, each setting declared once, here.

A field is a setting: its type, default, constraint and help text. The app's LLM section
(`ragtest.config.llm.LLMSettings`) derives from this model, so the field `name` is the flag `--llm-<name>` and the
`make_config` keyword `llm_<name>`. The module imports no LangChain: the app reads it at start-up without loading
the chat models (seconds).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

#: How structured calls ask for JSON (see `LLMConfig.structured_output`).
StructuredOutput = Literal["auto", "native", "prompt"]


class LLMConfig(BaseModel):
    """How calls are made. Every field has a safe default for hosted providers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: Annotated[
        int, Field(ge=1, description="LLM calls in flight at most; halved on a 429, raised again on success")
    ] = 8
    fixed_concurrency: Annotated[bool, Field(description="keep --llm-concurrency fixed (no adaptive cut on 429s)")] = (
        False
    )
    timeout: Annotated[float, Field(gt=0, description="seconds per LLM call")] = 60.0
    rps: Annotated[float | None, Field(gt=0, description="LLM requests per second at most")] = None
    tpm: Annotated[
        float | None, Field(gt=0, description="LLM prompt tokens per minute at most (estimated before sending)")
    ] = None
    retries: Annotated[int, Field(ge=0, description="retries of a failed LLM call")] = 6
    backoff: Annotated[float, Field(ge=0, description="first retry delay in seconds, doubled each retry, jittered")] = (
        1.0
    )
    temperature: Annotated[float, Field(ge=0, description="sampling temperature of every LLM call")] = 0.0
    structured_output: Annotated[
        StructuredOutput,
        Field(
            description="JSON replies: the provider's native schema parameter, falling back to the schema in the "
            "prompt if the server rejects it (auto), always native, or always in the prompt"
        ),
    ] = "auto"
    batch: Annotated[
        bool,
        Field(
            description="send LLM calls through the provider's Batch API (OpenAI): about half the price, results "
            "within its completion window; the batch id is kept in the run folder, so running the same command "
            "again resumes a batch instead of paying twice"
        ),
    ] = False
    batch_poll: Annotated[
        float, Field(gt=0, description="first wait between two polls of a batch, growing 1.5 times a poll")
    ] = 10.0
    batch_poll_max: Annotated[float, Field(gt=0, description="longest wait between two polls of a batch")] = 300.0
    batch_retry: Annotated[
        Literal["online", "batch"],
        Field(description="where a batch line that failed goes: online at once, or into the next batch first"),
    ] = "online"
