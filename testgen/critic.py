"""Groundedness and answerability judges for generated samples: an LLM critic, or the offline check.

- grounded_many(drafts, blocks): each reference answer is supported by the blocks it cites, and every cited block
  contributes (gold provenance); the LLM critic also judges that the question stands alone.
- unanswerable_many(drafts, passages): the corpus neighbourhood of the questions does NOT answer them.
Both judge one context's drafts together (the LLM critic in one call) and return, per draft, None to accept or a
rejection reason. The screen asks only about drafts that passed every offline filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel, Field

from ragtest_core.embeddings import Embedder
from ragtest_core.errors import LLMError, LLMPermanentError
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.support import is_supported, shared_stems
from testgen.hop_critic import ONE_CONTEXT, alone_calls, single_context_problem
from testgen.writers.base import Draft

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models (seconds of start-up)
    from ragtest_core.llm.client import LLMClient

V = TypeVar("V", bound=BaseModel)

STAGE = "testgen_critic"

GROUNDED_PROMPT = """You check question/answer pairs written from some numbered text blocks.
For each pair, decide:
- supported: every claim of the answer is stated in, or directly follows from, the blocks the pair cites;
- standalone: the question makes sense without seeing the blocks (no "the passage", no unclear "it"/"this") \
and is specific enough to have one clear answer.
Give one verdict per pair, with the pair's number.

blocks:
{blocks}

pairs:
{pairs}
"""

ANSWERABLE_PROMPT = """Can each question below be answered from the passages? Answer answerable=true for a \
question only when the passages state its answer. Give one verdict per question, with the question's number.

questions:
{questions}

passages:
{passages}
"""


class Grounding(BaseModel):
    pair: int = Field(default=0, description="the pair's number")
    supported: bool
    standalone: bool = True
    reason: str = ""


class Groundings(BaseModel):
    verdicts: list[Grounding]


class Answerability(BaseModel):
    question: int = Field(default=0, description="the question's number")
    answerable: bool
    reason: str = ""


class Answerabilities(BaseModel):
    verdicts: list[Answerability]


class Critic(Protocol):
    """Judges the drafts of one context together: `blocks` are the context's block texts (draft.blocks index them),
    `passages` the corpus neighbourhood of its unanswerable drafts. One verdict per draft: None or a reason.

    `calls` and `failed_calls` count its LLM calls, `last_error` is the last failed one's error and `llm` its
    client (0, 0, None and None for a critic that calls no LLM: inherit this class for those defaults)."""

    name: str
    calls: int = 0
    failed_calls: int = 0
    last_error: str | None = None
    llm: LLMClient | None = None

    async def grounded_many(self, drafts: Sequence[Draft], blocks: Sequence[str]) -> list[str | None]: ...

    async def unanswerable_many(self, drafts: Sequence[Draft], passages: Sequence[str]) -> list[str | None]: ...


def _blocks(texts: Sequence[str]) -> str:
    return "\n\n".join(f"[{number}] {text}" for number, text in enumerate(texts, start=1))


def _cited(draft: Draft, blocks: Sequence[str]) -> list[str]:
    return [blocks[n - 1] for n in draft.blocks if 1 <= n <= len(blocks)]


def provenance_problem(draft: Draft, gold: Sequence[str]) -> str | None:
    """Each cited block must share content with the question or answer (a multi-context answer needs both)."""
    if draft.question_type == "multi_context" and len(gold) < 2:
        return "single_block_multi_context"
    if len(gold) > 1:
        text = f"{draft.question} {draft.answer}"
        if any(shared_stems(text, block) == 0 for block in gold):
            return "uncited_block"
    return None


def grounded_call(
    pairs: Sequence[tuple[str, str, Sequence[int]]], blocks: Sequence[str], question_type: str = ""
) -> PlannedCall:
    """The one call `LLMCritic.grounded_many` makes for a context's drafts: (question, answer, cited block numbers)
    of each, and the context's block texts."""
    listed = "\n".join(
        f"{number}. question: {question}\n   answer: {answer}\n   cites: {', '.join(f'[{b}]' for b in cites)}"
        for number, (question, answer, cites) in enumerate(pairs, start=1)
    )
    prompt = GROUNDED_PROMPT.format(blocks=_blocks(blocks), pairs=listed)
    return PlannedCall(STAGE, prompt, Groundings, items=len(pairs), question_type=question_type)


def answerable_call(
    questions: Sequence[str], passages: Sequence[str], question_type: str = "unanswerable"
) -> PlannedCall:
    """The one call `LLMCritic.unanswerable_many` makes for a context's unanswerable drafts and their passages."""
    listed = "\n".join(f"{number}. {question}" for number, question in enumerate(questions, start=1))
    prompt = ANSWERABLE_PROMPT.format(questions=listed, passages=_blocks(passages))
    return PlannedCall(STAGE, prompt, Answerabilities, items=len(questions), question_type=question_type)


class OfflineCritic(Critic):
    """The offline check: `ragtest_core.support`, the rule the local judge scores with (embeddings plus lexical
    alignment), so a reference accepted here is one the judge counts as supported by its gold chunks. A draft that
    names its evidence sentences (the offline writer's) is checked on those: each must be supported by its cited
    blocks."""

    name = "offline"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    async def grounded_many(self, drafts: Sequence[Draft], blocks: Sequence[str]) -> list[str | None]:
        return [self.grounded_one(draft, _cited(draft, blocks)) for draft in drafts]

    async def unanswerable_many(self, drafts: Sequence[Draft], passages: Sequence[str]) -> list[str | None]:
        return [
            "no_hypothesis" if not d.hypothesis else "answerable" if self._supported(d.hypothesis, passages) else None
            for d in drafts
        ]

    def grounded_one(self, draft: Draft, gold: Sequence[str]) -> str | None:
        if (problem := provenance_problem(draft, gold)) is not None:
            return problem
        claims = draft.evidence or (draft.answer,)
        if not all(self._supported(claim, gold) for claim in claims):
            return "not_grounded"
        return single_context_problem(draft, gold, self._supported)

    def _supported(self, claim: str, gold: Sequence[str]) -> bool:
        """The support rule; lexical evidence alone settles most claims (a copied sentence), without embedding."""
        return is_supported(claim, gold) or (self.embedder is not None and is_supported(claim, gold, self.embedder))


class LLMCritic(Critic):
    """An LLM judge through `LLMClient` (cached): one call per context for the drafts that passed every offline
    filter (all of that context's drafts together), one more for its unanswerable drafts."""

    name = "llm"
    llm: LLMClient

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    async def grounded_many(self, drafts: Sequence[Draft], blocks: Sequence[str]) -> list[str | None]:
        verdicts: list[str | None] = [provenance_problem(draft, _cited(draft, blocks)) for draft in drafts]
        if not (asked := [index for index, verdict in enumerate(verdicts) if verdict is None]):
            return verdicts
        pairs = [(drafts[i].question, drafts[i].answer, drafts[i].blocks) for i in asked]
        result = await self._ask(grounded_call(pairs, blocks, drafts[asked[0]].question_type), Groundings)
        found = _numbered(None if result is None else result.verdicts, "pair", len(asked))
        for index, v in zip(asked, found, strict=True):
            if v is None or not (v.supported and v.standalone):  # else None: accepted
                verdicts[index] = "critic_failed" if v is None else "not_standalone" if v.supported else "not_grounded"
        return await self._one_context(drafts, blocks, verdicts)

    async def _one_context(
        self, drafts: Sequence[Draft], blocks: Sequence[str], verdicts: list[str | None]
    ) -> list[str | None]:
        """`hop_critic`: a grounded multi-hop draft that one cited block answers alone is rejected."""
        for call, asked in alone_calls(drafts, blocks, answerable_call, [verdict is None for verdict in verdicts]):
            result = await self._ask(call, Answerabilities)
            found = {v.question: v for v in result.verdicts} if result is not None else {}
            for number, index in enumerate(asked, start=1):
                if (verdict := found.get(number)) is None:
                    verdicts[index] = "critic_failed"
                elif verdict.answerable:
                    verdicts[index] = ONE_CONTEXT
        return verdicts

    async def unanswerable_many(self, drafts: Sequence[Draft], passages: Sequence[str]) -> list[str | None]:
        if not drafts:
            return []
        result = await self._ask(answerable_call([d.question for d in drafts], passages), Answerabilities)
        return [
            "critic_failed" if verdict is None else ("answerable" if verdict.answerable else None)
            for verdict in _numbered(None if result is None else result.verdicts, "question", len(drafts))
        ]

    async def _ask(self, call: PlannedCall, schema: type[V]) -> V | None:
        """The critic's verdicts, or None when the call failed (a permanent error stops the run at once)."""
        self.calls += 1
        try:
            return await self.llm.structured(call.prompt, schema, stage=call.stage)
        except LLMPermanentError:
            raise
        except LLMError as exc:
            self.failed_calls += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            return None


def _numbered(verdicts: Sequence[V] | None, number: str, count: int) -> list[V | None]:
    """The verdicts for items 1 to `count` by the item number each carries (field `number`); numbered wrongly but
    complete: in order; all None when the call failed."""
    if verdicts is None:
        return [None] * count
    by_number = {getattr(verdict, number): verdict for verdict in verdicts}
    complete = len(verdicts) == count
    return [by_number.get(n, verdicts[n - 1] if complete else None) for n in range(1, count + 1)]
