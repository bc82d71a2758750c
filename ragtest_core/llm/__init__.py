"""The LLM runtime: every LLM call of every stage goes through an `LLMClient`."""

from ragtest_core.llm.cache import LLMCache
from ragtest_core.llm.client import LLMClient, LLMConfig
from ragtest_core.llm.formats import STRUCTURED_OUTPUT_MODES, structured_output_mode
from ragtest_core.llm.guard import ModelUnfitError
from ragtest_core.llm.limits import CALL_ORDER
from ragtest_core.llm.parsing import extract_json, parse_structured
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.llm.scripted import ScriptedChatModel
from ragtest_core.llm.spec import build_client, make_chat_model
from ragtest_core.llm.usage import UsageTracker

__all__ = [
    "CALL_ORDER",
    "STRUCTURED_OUTPUT_MODES",
    "LLMCache",
    "LLMClient",
    "LLMConfig",
    "ModelUnfitError",
    "PlannedCall",
    "ScriptedChatModel",
    "UsageTracker",
    "build_client",
    "extract_json",
    "make_chat_model",
    "parse_structured",
    "structured_output_mode",
]
