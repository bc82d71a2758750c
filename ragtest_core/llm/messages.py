"""The messages of a call: a prompt as chat messages, and where a structured call's JSON schema goes.

A stage that splits its prompt into stable instructions (a system message) and the variable data (the user
message after it) gets the schema text appended to the instructions: everything that is the same for every call
of a kind comes first, so a provider's prompt-prefix cache can reuse it. A plain prompt gets the schema at its end.
With native structured output (the schema travels as a request parameter) the messages carry no schema text.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from ragtest_core.llm.parsing import schema_instructions

Prompt = str | Sequence[BaseMessage]


def to_messages(prompt: Prompt) -> list[BaseMessage]:
    if isinstance(prompt, str):
        return [HumanMessage(content=prompt)]
    messages = list(prompt)
    if not messages:
        raise ValueError("an LLM prompt needs at least one message")
    return messages


def split_prompt(instructions: str, data: str) -> list[BaseMessage]:
    """Stable instructions first (a system message), the call's own data last; no system message without
    instructions."""
    return [*([SystemMessage(content=instructions)] if instructions else []), HumanMessage(content=data)]


def with_instructions(messages: list[BaseMessage], instructions: str) -> list[BaseMessage]:
    """The messages with `instructions` added: to a leading system message that a user message follows (the
    stable prefix), else to the end of the last user message, else as a new user message."""
    first, last = messages[0], messages[-1]
    if isinstance(first, SystemMessage) and isinstance(first.content, str) and len(messages) > 1:
        return [SystemMessage(content=f"{first.content}\n\n{instructions}"), *messages[1:]]
    if isinstance(last, HumanMessage) and isinstance(last.content, str):
        return [*messages[:-1], HumanMessage(content=f"{last.content}\n\n{instructions}")]
    return [*messages, HumanMessage(content=instructions)]


def structured_messages(messages: list[BaseMessage], schema: type[BaseModel], native: bool) -> list[BaseMessage]:
    """The messages of a structured call: the schema as text unless the provider takes it natively."""
    return messages if native else with_instructions(messages, schema_instructions(schema))


def prompt_text(messages: Sequence[BaseMessage]) -> str:
    """The whole prompt as one text (all message contents joined)."""
    return "\n".join(str(m.content) for m in messages)
