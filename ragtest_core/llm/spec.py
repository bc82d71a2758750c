"""Turning `--llm SPEC` / `--llm-base-url URL` into a LangChain chat model and an LLMClient."""

from __future__ import annotations

import os
from pathlib import Path

from langchain_core.language_models.chat_models import BaseChatModel
from pydantic import SecretStr

from ragtest_core.errors import RagtestError
from ragtest_core.llm.batch import BatchRunner
from ragtest_core.llm.batch_journal import BATCH_JOURNAL_FILE, BatchJournal
from ragtest_core.llm.batch_openai import OpenAIBatches
from ragtest_core.llm.cache import LLMCache, ReplyCache
from ragtest_core.llm.client import LLMClient, LLMConfig
from ragtest_core.llm.limits import ConcurrencyLimit, RequestLimits
from ragtest_core.llm.usage import UsageTracker
from ragtest_core.redact import redact_url

DEFAULT_BASE_URL_MODEL = "default"
_EXTRAS = ("openai", "ollama", "anthropic")  # optional-dependency groups in pyproject.toml
_PROVIDERS = (
    "openai azure_openai anthropic ollama groq mistralai together fireworks deepseek xai perplexity google_genai "
    "google_vertexai bedrock bedrock_converse cohere huggingface nvidia ibm upstage openrouter litellm"
)
#: LangChain provider prefixes (`init_chat_model`'s "provider:model"): an OpenAI-compatible server gets the model
#: name without them (`openai:gpt-4o-mini` -> `gpt-4o-mini`). A colon inside a name (`llama3.1:8b`) stays.
PROVIDER_PREFIXES = frozenset(_PROVIDERS.split())


def model_name(spec: str) -> str:
    """The model's own name in a spec: `openai:gpt-4o-mini` -> `gpt-4o-mini`; `llama3.1:8b` is left whole."""
    provider, separator, name = spec.partition(":")
    return name if separator and name and provider in PROVIDER_PREFIXES else spec


def make_chat_model(spec: str | None, base_url: str | None = None, config: LLMConfig | None = None) -> BaseChatModel:
    """A chat model from a LangChain spec (`openai:gpt-4o-mini`, `ollama:llama3.1`) or an OpenAI-compatible URL.

    `--llm http://host:port/v1` alone, or `--llm-base-url URL` with an optional model name in `--llm`, talks to any
    OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama's /v1); a provider prefix in the name is dropped
    (`--llm openai:gpt-4o-mini --llm-base-url URL` sends the model `gpt-4o-mini`). Provider retries are turned off: the
    ragtest runtime does the retrying, so it can honour Retry-After and count every attempt.
    """
    config = config or LLMConfig()
    if spec and spec.startswith(("http://", "https://")):
        base_url, spec = spec, None
    if base_url:
        try:
            from langchain_openai import ChatOpenAI
        except ImportError as exc:
            raise RagtestError(
                "an OpenAI-compatible URL needs langchain-openai: pip install 'ragtest[openai]'"
            ) from exc
        key = SecretStr(os.environ.get("RAGTEST_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed")
        name = model_name(spec) if spec else DEFAULT_BASE_URL_MODEL
        return ChatOpenAI(model=name, base_url=base_url, api_key=key, temperature=config.temperature, max_retries=0,
                          timeout=config.timeout)  # fmt: skip
    if not spec:
        raise RagtestError("no LLM configured: pass --llm SPEC (e.g. openai:gpt-4o-mini) or --llm-base-url URL")
    from langchain.chat_models import init_chat_model

    try:
        model = init_chat_model(spec, temperature=config.temperature, max_retries=0, timeout=config.timeout)
    except Exception as exc:  # a missing provider package, pydantic validation (missing key), unknown provider
        raise RagtestError(_model_error(spec, exc)) from exc
    if not isinstance(model, BaseChatModel):
        raise RagtestError(f"{spec!r} did not give a chat model")
    return model


def _model_error(spec: str, exc: Exception) -> str:
    provider = spec.split(":", 1)[0] if ":" in spec else ""
    missing = isinstance(exc, ImportError) or "has no attribute" in str(exc)  # e.g. a community fallback that is gone
    if missing and provider:
        package = f"langchain-{provider.replace('_', '-')}"
        extra = f"'ragtest[{provider}]' or " if provider in _EXTRAS else ""
        return f"the provider package for {spec!r} is not installed: pip install {extra}{package} ({exc})"
    return f"could not create the chat model {spec!r}: {exc}"


def model_identity(spec: str | None, base_url: str | None) -> str:
    """The model's name as cached, priced, written and printed: the spec, plus the URL for OpenAI-compatible
    servers, without the credentials a URL may carry (`http://user:PASSWORD@host/v1` -> `http://<redacted>@host/v1`:
    a password is not part of what answers, and it must not reach the cache, the manifest or the console)."""
    if spec and spec.startswith(("http://", "https://")):
        return f"{redact_url(spec)}#{DEFAULT_BASE_URL_MODEL}"
    if base_url:
        return f"{redact_url(base_url)}#{spec or DEFAULT_BASE_URL_MODEL}"
    return spec or ""


def build_client(
    spec: str | None,
    base_url: str | None = None,
    *,
    cache_path: str | Path | None = None,
    config: LLMConfig | None = None,
    model: BaseChatModel | None = None,
    prices: dict[str, tuple[float, float]] | None = None,
    batch_journal: str | Path | None = None,
    cache: ReplyCache | None = None,
    concurrency: ConcurrencyLimit | None = None,
    limits: RequestLimits | None = None,
) -> LLMClient | None:
    """The run's LLMClient, or None when no LLM is configured (the offline defaults then apply). With
    `config.batch`, calls go through the provider's Batch API, recorded in `batch_journal` (the run folder's
    `llm_batches.jsonl` by default: ./llm_batches.jsonl). `cache` (instead of `cache_path`), `concurrency` and
    `limits`: ones shared with other clients (see `LLMClient`)."""
    if model is None and not spec and not base_url:
        return None
    config = config or LLMConfig()
    chat_model = model if model is not None else make_chat_model(spec, base_url, config)
    model_id = str(model_identity(spec, base_url) or getattr(chat_model, "model_name", type(chat_model).__name__))
    if cache_path is not None:
        cache = LLMCache(cache_path)
    usage = UsageTracker(model_id=model_id) if prices is None else UsageTracker(model_id, prices=prices)
    journal = BatchJournal(Path(batch_journal or BATCH_JOURNAL_FILE))
    batch = BatchRunner(OpenAIBatches(chat_model), journal, config, cache, model_id) if config.batch else None
    return LLMClient(chat_model, model_id, config, cache, usage, batch, concurrency=concurrency, limits=limits)
