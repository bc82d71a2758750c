"""A planned LLM call: what a stage WILL send, built by the same code that sends it (for `--dry-run` estimates).

Stage packages return `PlannedCall`s from their public planning functions (`testgen.plan_llm_calls`,
`evaluation.plan_llm_calls`); the estimator only counts them. `text()` is the user message as
`LLMClient.structured` sends it: the prompt followed by the schema's JSON instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from ragtest_core.llm.parsing import schema_instructions


@dataclass(frozen=True)
class PlannedCall:
    """One LLM call a stage will make."""

    #: The runtime's call label (the `stage=` of the call), e.g. "faithfulness.verdicts" or "testgen".
    stage: str
    #: The prompt as the stage renders it (before the schema instructions are appended).
    prompt: str
    #: The reply schema of a structured call; None for a plain text call.
    schema: type[BaseModel] | None = None
    #: Texts the reply is expected to restate (statements to judge, sentences to classify, the answer to split).
    echo: tuple[str, ...] = ()
    #: How many items the reply is expected to hold (question/answer pairs, generated questions, verdicts).
    items: int = 1
    #: The question type of a test-set generation call ("" elsewhere).
    question_type: str = ""

    def text(self) -> str:
        """The message text as sent: the prompt plus, for a structured call, the schema's JSON instructions."""
        if self.schema is None:
            return self.prompt
        return f"{self.prompt}\n\n{schema_instructions(self.schema)}"
