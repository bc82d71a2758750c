"""A scripted chat model for tests: replies come from a list or from a function of the prompt.

Unlike langchain_core's fake models, it answers by content, so concurrent calls get the reply meant for them,
and it reports token usage like a real provider.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from ragtest_core.llm.messages import prompt_text

Responder = Callable[[str], str]
__all__ = ["Responder", "ScriptedChatModel", "prompt_text"]


class ScriptedChatModel(BaseChatModel):
    """Replies with `responder(prompt)` when given, else with `responses` in turn (cycling)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[str] = Field(default_factory=list)
    responder: Responder | None = None
    model_name: str = "scripted"
    _turn: int = PrivateAttr(default=0)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    @property
    def prompts(self) -> list[str]:
        """Every prompt received, in order: tests count calls with it."""
        return list(self._prompts)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = prompt_text(messages)
        with self._lock:  # the async path runs _generate in executor threads
            self._prompts.append(prompt)
            turn = self._turn
            self._turn += 1
        if self.responder is not None:
            reply = self.responder(prompt)
        elif self.responses:
            reply = self.responses[turn % len(self.responses)]
        else:
            raise ValueError("ScriptedChatModel needs responses or a responder")
        usage = {
            "input_tokens": max(1, len(prompt) // 4),
            "output_tokens": max(1, len(reply) // 4),
            "total_tokens": max(1, len(prompt) // 4) + max(1, len(reply) // 4),
        }
        message = AIMessage(content=reply, usage_metadata=usage, response_metadata={"finish_reason": "stop"})
        return ChatResult(generations=[ChatGeneration(message=message)])
