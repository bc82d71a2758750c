"""Which LLM to use (none: offline), how its calls are made, its cache and prices.

How calls are made is declared once, by the LLM runtime (`ragtest_core.llm.LLMConfig`): `LLMSettings` derives from
that model, so each of those settings has its type, default, validation and help text there, and one name here:
the field `timeout` is the flag `--llm-timeout`, the `make_config` keyword `llm_timeout` and the manifest's
`llm.timeout`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ragtest.settings import Opt, Section
from ragtest_core.llm.config import LLMConfig
from ragtest_core.llm.usage import PRICES_ENV
from ragtest_core.onnx_embedder import CACHE_ENV

#: The runtime's settings whose value is a time (the others' metavar follows from their type).
_SECONDS = frozenset({"timeout", "backoff", "batch_poll", "batch_poll_max"})


class ModelChoice(Section):
    """Which LLM answers (none: offline)."""

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


class LLMSettings(LLMConfig, ModelChoice):
    """Which LLM to use (none: offline) and how its calls are made (the fields of `LLMConfig`)."""

    cache: Annotated[bool, Field(description="read and write the LLM reply cache (a re-run repeats no paid call)")] = (
        True
    )
    cache_dir: Annotated[
        str | None,
        Field(description="keep the LLM cache here instead of in the run directory"),
        Opt(env=CACHE_ENV, metavar="DIR"),
    ] = None
    prices: Annotated[
        str | None,
        Field(description="JSON or TOML price table, model -> [input, output] USD per million tokens"),
        Opt(env=PRICES_ENV, metavar="FILE"),
    ] = None

    @property
    def configured(self) -> bool:
        return bool(self.spec or self.base_url)

    def runtime(self) -> LLMConfig:
        """The LLM runtime's settings alone (no model choice, cache or prices: nothing a URL's password is in)."""
        return LLMConfig(**self.model_dump(include=set(LLMConfig.model_fields)))


# Each setting inherited from `LLMConfig` gets its `Opt`: the keyword `llm_<name>` (and so the flag `--llm-<name>`),
# in the section's group. The declaration itself stays the runtime's.
for _name in LLMConfig.model_fields:
    _info = LLMSettings.model_fields[_name]
    _info.metadata = [*_info.metadata, Opt(keyword=f"llm_{_name}", metavar="SECONDS" if _name in _SECONDS else None)]
