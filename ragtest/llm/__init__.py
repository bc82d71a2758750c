"""The LLM runtime: every LLM call of every stage goes through an `LLMClient`."""

from ragtest.llm.cache import LLMCache
from ragtest.llm.client import LLMClient, LLMConfig
from ragtest.llm.parsing import extract_json, parse_structured
from ragtest.llm.plan import PlannedCall
from ragtest.llm.scripted import ScriptedChatModel
from ragtest.llm.spec import build_client, make_chat_model
from ragtest.llm.usage import UsageTracker

__all__ = [
    "LLMCache",
    "LLMClient",
    "LLMConfig",
    "PlannedCall",
    "ScriptedChatModel",
    "UsageTracker",
    "build_client",
    "extract_json",
    "make_chat_model",
    "parse_structured",
]
