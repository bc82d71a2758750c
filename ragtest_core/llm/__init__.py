"""The LLM runtime: every LLM call of every stage goes through an `LLMClient`.

Names load on first use (PEP 562), so importing `ragtest_core.llm.plan` or `.usage` does not import LangChain's chat
models (seconds of start-up for a run without an LLM). Type checkers see the real imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragtest_core.llm.cache import LLMCache as LLMCache
    from ragtest_core.llm.client import LLMClient as LLMClient
    from ragtest_core.llm.config import LLMConfig as LLMConfig
    from ragtest_core.llm.guard import ModelUnfitError as ModelUnfitError
    from ragtest_core.llm.parsing import extract_json as extract_json
    from ragtest_core.llm.parsing import parse_structured as parse_structured
    from ragtest_core.llm.plan import PlannedCall as PlannedCall
    from ragtest_core.llm.spec import build_client as build_client
    from ragtest_core.llm.spec import make_chat_model as make_chat_model
    from ragtest_core.llm.usage import UsageTracker as UsageTracker

_HOMES = {
    "cache": ["LLMCache"], "client": ["LLMClient"], "config": ["LLMConfig"], "guard": ["ModelUnfitError"],
    "parsing": ["extract_json", "parse_structured"], "plan": ["PlannedCall"], "usage": ["UsageTracker"],
    "spec": ["build_client", "make_chat_model"],
}  # fmt: skip
_EXPORTS = {name: f"ragtest_core.llm.{module}" for module, names in _HOMES.items() for name in names}

__all__ = sorted(_EXPORTS)  # the names of the TYPE_CHECKING imports above


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragtest_core.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
