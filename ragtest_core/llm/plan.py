"""A planned LLM call: what a stage WILL send, built by the same code that sends it (for `--dry-run` estimates).

Stage packages return `PlannedCall`s from their public planning functions (`testgen.planning.plan_llm_calls`,
`evaluation.planning.plan_llm_calls`); the estimator only counts them. A stage sends a call's `base_messages()`
(the client adds the schema), so what is planned is what is sent. `text()` is every message's content joined, as
`LLMClient.structured` sends it: the instructions (a system message) with the schema's JSON instructions after
them, then the prompt; or, without instructions, the prompt followed by the schema's JSON instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from ragtest_core.llm.messages import prompt_text, split_prompt, structured_messages


@dataclass(frozen=True)
class PlannedCall:
    """One LLM call a stage will make."""

    #: The runtime's call label (the `stage=` of the call), e.g. "faithfulness.verdicts" or "testgen".
    stage: str
    #: The call's own data (or the whole prompt when `instructions` is empty), sent last.
    prompt: str
    #: The reply schema of a structured call; None for a plain text call.
    schema: type[BaseModel] | None = None
    #: Texts the reply is expected to restate (statements to judge, sentences to classify, the answer to split).
    echo: tuple[str, ...] = ()
    #: How many items the reply is expected to hold (question/answer pairs, generated questions, verdicts).
    items: int = 1
    #: The question type of a test-set generation call ("" elsewhere).
    question_type: str = ""
    #: The instructions every call of this kind shares, sent first (a system message) so providers can cache them.
    instructions: str = ""

    def base_messages(self) -> list[BaseMessage]:
        """The instructions and the prompt, before any schema text: what a stage passes to the client."""
        return split_prompt(self.instructions, self.prompt)

    def text(self) -> str:
        """The message text as sent with the schema in the prompt (all contents joined)."""
        base = self.base_messages()
        return prompt_text(base if self.schema is None else structured_messages(base, self.schema, native=False))
