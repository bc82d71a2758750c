"""An updated row: its question asked again of the new text by the writer of the new questions, and the new reference
judged by the same critic as generation (docs/refresh.md); the LLM writer's one call is `rewrite_call`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from ragtest_core.errors import LLMError, LLMPermanentError
from ragtest_core.llm.plan import PlannedCall
from testgen.contexts import Context
from testgen.critic import Critic
from testgen.filters import normalise_question
from testgen.question_types import QuestionType
from testgen.writers.base import Draft, QuestionWriter

if TYPE_CHECKING:
    from ragtest_core.llm.client import LLMClient

STAGE = "refresh_rewrite"
#: Drafts the offline writer is asked for when looking for the same question in a new chunk.
SEARCH_DRAFTS = 50
REWRITE_PROMPT = """The question below was written from an earlier version of a document. Answer it again from the \
numbered blocks of the new version only. Give the reference answer (one or two sentences the blocks state), the \
short answer inside it (a name, number or phrase) and the numbers of the blocks it comes from. If the blocks no \
longer answer the question, or contradict what it assumes, set answerable to false.

question: {question}

blocks:
{blocks}
"""


class Reanswer(BaseModel):
    answerable: bool
    answer: str = ""
    answer_span: str = ""
    blocks: list[int] = Field(default_factory=lambda: [1])


def rewrite_call(question: str, blocks: list[str]) -> PlannedCall:
    listed = "\n\n".join(f"[{number}] {text}" for number, text in enumerate(blocks, start=1))
    return PlannedCall(STAGE, REWRITE_PROMPT.format(question=question, blocks=listed), Reanswer)


async def rewrite(
    question: str, question_type: QuestionType, context: Context, writer: QuestionWriter, critic: Critic
) -> tuple[Draft | None, str]:
    """The new draft for `question` from `context`, checked by `critic`, or None and why not."""
    if writer.llm is not None:
        draft, why = await _answer_again(question, question_type, context, writer.llm)
    else:
        draft, why = await _write_again(question, question_type, context, writer)
    if draft is None:
        return None, why
    verdict = (await critic.grounded_many([draft], [chunk.text for chunk in context.blocks]))[0]
    return (draft, "") if verdict is None else (None, f"the critic rejected the new reference ({verdict})")


async def _write_again(
    question: str, question_type: QuestionType, context: Context, writer: QuestionWriter
) -> tuple[Draft | None, str]:
    if question_type not in writer.supported_types or not writer.can_write(context.root, question_type):
        return None, f"the {writer.name} writer cannot write a {question_type} question from the new text"
    wanted = normalise_question(question)
    drafts = await writer.write(context, SEARCH_DRAFTS, question_type)
    draft = next((d for d in drafts if normalise_question(d.question) == wanted), None)
    return draft, "" if draft is not None else "the new text no longer gives this question an answer"


async def _answer_again(
    question: str, question_type: QuestionType, context: Context, llm: LLMClient
) -> tuple[Draft | None, str]:
    call = rewrite_call(question, [chunk.text for chunk in context.blocks])
    try:
        reply = await llm.structured(call.prompt, Reanswer, stage=STAGE)
    except LLMPermanentError:
        raise
    except LLMError as exc:
        return None, f"the rewrite call failed ({type(exc).__name__}: {exc})"
    if not reply.answerable or not reply.answer.strip():
        return None, "the new text no longer answers the question (the writer said so)"
    blocks = tuple(dict.fromkeys(b for b in reply.blocks if context.block(b) is not None)) or (1,)
    span = reply.answer_span.strip() or None
    return Draft(question, reply.answer.strip(), blocks, question_type, answer_span=span), ""
