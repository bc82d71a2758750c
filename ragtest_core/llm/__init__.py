"""The LLM runtime: every LLM call of every stage goes through an `LLMClient`.

Names load on first use (PEP 562), so importing `ragtest_core.llm.plan` or `.usage` does not import LangChain's chat
models (seconds of start-up for a run without an LLM). Type checkers see the real imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragtest_core.llm.cache import LLMCache
    from ragtest_core.llm.client import LLMClient
    from ragtest_core.llm.config import LLMConfig
    from ragtest_core.llm.guard import ModelUnfitError
    from ragtest_core.llm.parsing import extract_json, parse_structured
    from ragtest_core.llm.plan import PlannedCall
    from ragtest_core.llm.spec import build_client, make_chat_model
    from ragtest_core.llm.usage import UsageTracker

_EXPORTS = {
    "ModelUnfitError": "ragtest_core.llm.guard",
    "LLMCache": "ragtest_core.llm.cache",
    "LLMClient": "ragtest_core.llm.client",
    "LLMConfig": "ragtest_core.llm.config",
    "PlannedCall": "ragtest_core.llm.plan",
    "UsageTracker": "ragtest_core.llm.usage",
    "build_client": "ragtest_core.llm.spec",
    "extract_json": "ragtest_core.llm.parsing",
    "make_chat_model": "ragtest_core.llm.spec",
    "parse_structured": "ragtest_core.llm.parsing",
}

__all__ = [
    "LLMCache",
    "LLMClient",
    "LLMConfig",
    "ModelUnfitError",
    "PlannedCall",
    "UsageTracker",
    "build_client",
    "extract_json",
    "make_chat_model",
    "parse_structured",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragtest_core.llm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
