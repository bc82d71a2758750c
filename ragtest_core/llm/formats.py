"""Native structured output: the request parameter that makes a provider return JSON of a given schema.

- OpenAI and OpenAI-compatible servers (`ChatOpenAI`, `AzureChatOpenAI`; vLLM, llama.cpp, LM Studio, Ollama's
  /v1): `response_format` = {"type": "json_schema", "json_schema": {name, schema, strict}}, the strict schema that
  `with_structured_output` would send. The reply text comes back as from any call; the runtime parses it like any
  other reply, so caching, retries and usage work unchanged.
- Ollama (`ChatOllama`): `format` = the JSON schema.
- Any other model: None; the schema goes into the prompt as text (`parsing.schema_instructions`).

A server that rejects the parameter (a 400 or 422 on a native request, or a model class that refuses the keyword)
makes the client fall back to the schema in the prompt for that model, and remember it (see `LLMClient`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from pydantic import BaseModel

from ragtest_core.llm.config import StructuredOutput
from ragtest_core.llm.errors import CallFailure
from ragtest_core.llm.parsing import json_schema

SETTING = "structured_output"


_FAMILIES = {"ChatOpenAI": "openai", "AzureChatOpenAI": "openai", "ChatOllama": "ollama"}


def provider_family(model: BaseChatModel) -> str | None:
    """ "openai" or "ollama" when the model's class (or a base class) takes a native schema, else None."""
    return next((_FAMILIES[cls.__name__] for cls in type(model).__mro__ if cls.__name__ in _FAMILIES), None)


def native_kwargs(model: BaseChatModel, schema: type[BaseModel]) -> dict[str, Any] | None:
    """The invoke keyword that asks `model` for JSON matching `schema`, or None when it has no such parameter.

    OpenAI: `response_format` travels in `extra_body` (merged with the model's own), so langchain-openai takes its
    plain completion path: the reply text comes back as from any call (a cut reply has finish_reason "length", a
    refusal its `refusal` field) without the SDK's parse step, which costs a third more client CPU per call."""
    family = provider_family(model)
    if family is None:
        return None
    kwargs = _native_kwargs(family, schema)
    return {"extra_body": {**(getattr(model, "extra_body", None) or {}), **kwargs}} if family == "openai" else kwargs


def initial_mode(asked: StructuredOutput, model: BaseChatModel, remembered: str | None) -> str:
    """ "native" or "prompt": how a client starts asking for JSON, given the configured mode and what an earlier
    run learnt about the model (`remembered`: "prompt" when its server rejected the native parameter)."""
    remembered_prompt = asked == "auto" and remembered == "prompt"
    return "prompt" if asked == "prompt" or provider_family(model) is None or remembered_prompt else "native"


@lru_cache(maxsize=256)
def _native_kwargs(family: str, schema: type[BaseModel]) -> dict[str, Any]:
    if family == "ollama":
        return {"format": json_schema(schema)}
    strict = {"name": schema.__name__, "schema": json_schema(schema, strict=True), "strict": True}
    return {"response_format": {"type": "json_schema", "json_schema": strict}}


def is_format_rejection(exc: BaseException, failure: CallFailure) -> bool:
    """Whether a native request failed because the provider does not take the schema parameter: a 400 or 422
    (other than a too-long prompt), or a model class that refuses the keyword."""
    bad_request = failure.message.startswith(("bad request (400)", "request rejected (422)"))
    return isinstance(exc, (TypeError, NotImplementedError)) or bad_request
