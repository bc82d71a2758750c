"""Groundedness and answerability judges for generated samples: an LLM critic, or the offline check.

- grounded(draft, gold texts): the reference answer is supported by the cited blocks, and every cited block
  contributes (gold provenance); the LLM critic also judges that the question stands alone.
- unanswerable(draft, neighbourhood): the corpus neighbourhood of the question does NOT answer it.
Both return None to accept or a rejection reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

from ragtest_core.embeddings import Embedder
from ragtest_core.errors import LLMError, LLMPermanentError
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.support import is_supported, shared_stems
from testgen.writers.base import Draft

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models (seconds of start-up)
    from ragtest_core.llm.client import LLMClient

V = TypeVar("V", bound=BaseModel)

STAGE = "testgen_critic"

GROUNDED_PROMPT = """You check one question/answer pair written from some text blocks.
Decide:
- supported: every claim of the answer is stated in, or directly follows from, the blocks;
- standalone: the question makes sense without seeing the blocks (no "the passage", no unclear "it"/"this") \
and is specific enough to have one clear answer.

question: {question}
answer: {answer}

blocks:
{blocks}
"""

ANSWERABLE_PROMPT = """Can the question below be answered from the passages? Answer answerable=true only when \
the passages state the answer.

question: {question}

passages:
{passages}
"""


class Grounding(BaseModel):
    supported: bool
    standalone: bool = True
    reason: str = ""


class Answerability(BaseModel):
    answerable: bool
    reason: str = ""


class Critic(Protocol):
    name: str

    async def grounded(self, draft: Draft, gold: Sequence[str]) -> str | None: ...

    async def unanswerable(self, draft: Draft, neighbourhood: Sequence[str]) -> str | None: ...


def _blocks(texts: Sequence[str]) -> str:
    return "\n\n".join(f"[{number}] {text}" for number, text in enumerate(texts, start=1))


def provenance_problem(draft: Draft, gold: Sequence[str]) -> str | None:
    """Each cited block must share content with the question or answer (a multi-context answer needs both)."""
    if draft.question_type == "multi_context" and len(gold) < 2:
        return "single_block_multi_context"
    if len(gold) > 1:
        text = f"{draft.question} {draft.answer}"
        if any(shared_stems(text, block) == 0 for block in gold):
            return "uncited_block"
    return None


def grounded_call(question: str, answer: str, gold: Sequence[str], question_type: str = "") -> PlannedCall:
    """The call `LLMCritic.grounded` makes for a draft whose cited blocks are `gold`."""
    prompt = GROUNDED_PROMPT.format(question=question, answer=answer, blocks=_blocks(gold))
    return PlannedCall(STAGE, prompt, Grounding, question_type=question_type)


def answerable_call(question: str, neighbourhood: Sequence[str], question_type: str = "unanswerable") -> PlannedCall:
    """The call `LLMCritic.unanswerable` makes for an unanswerable draft and its corpus neighbourhood."""
    prompt = ANSWERABLE_PROMPT.format(question=question, passages=_blocks(neighbourhood))
    return PlannedCall(STAGE, prompt, Answerability, question_type=question_type)


class OfflineCritic:
    """The offline check: `ragtest_core.support`, the rule the local judge scores with (embeddings plus lexical
    alignment), so a reference accepted here is one the judge counts as supported by its gold chunks."""

    name = "offline"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    async def grounded(self, draft: Draft, gold: Sequence[str]) -> str | None:
        problem = provenance_problem(draft, gold)
        if problem is not None:
            return problem
        return None if is_supported(draft.answer, gold, self.embedder) else "not_grounded"

    async def unanswerable(self, draft: Draft, neighbourhood: Sequence[str]) -> str | None:
        if not draft.hypothesis:
            return "no_hypothesis"
        return "answerable" if is_supported(draft.hypothesis, neighbourhood, self.embedder) else None


class LLMCritic:
    """An LLM judge through `LLMClient` (cached): one call per candidate that passed the cheaper filters."""

    name = "llm"

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm
        self.calls = 0

    async def grounded(self, draft: Draft, gold: Sequence[str]) -> str | None:
        problem = provenance_problem(draft, gold)
        if problem is not None:
            return problem
        verdict = await self._ask(grounded_call(draft.question, draft.answer, gold), Grounding)
        if verdict is None:
            return "critic_failed"
        if not verdict.supported:
            return "not_grounded"
        return None if verdict.standalone else "not_standalone"

    async def unanswerable(self, draft: Draft, neighbourhood: Sequence[str]) -> str | None:
        verdict = await self._ask(answerable_call(draft.question, neighbourhood), Answerability)
        if verdict is None:
            return "critic_failed"
        return "answerable" if verdict.answerable else None

    async def _ask(self, call: PlannedCall, schema: type[V]) -> V | None:
        """The critic's verdict, or None when the call failed (a permanent error stops the run at once)."""
        self.calls += 1
        try:
            return await self.llm.structured(call.prompt, schema, stage=call.stage)
        except LLMPermanentError:
            raise
        except LLMError:
            return None
