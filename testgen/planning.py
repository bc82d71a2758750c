"""The LLM calls a generation run will make, planned without a client, by the code that makes them.

`plan_batch` is the generator's first batch: the same type targets (`allocate` over the renormalised
distribution), the same seeded root order and per-type walkers, and the same batch sizes (`batch_sizes` at a
yield of 1) as the scheduler (`testgen.scheduler`). `plan_llm_calls` renders each batch context's writer call
(`writer_call`, what `LLMWriter.write` sends) and the LLM critic's one call for that context's questions
(`grounded_call` or `answerable_call`, what `LLMCritic` sends). Questions per context default to the LLM writer's
(`LLMWriter.default_questions_per_context`). Without a store, the neighbours are stand-ins: other roots of the
same corpus (typical length, no embedding needed). A run whose filters reject many drafts makes more calls.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from ragtest_core.llm.plan import PlannedCall
from ragtest_core.text import split_sentences
from testgen.chunking import Chunk
from testgen.contexts import Context, build_contexts, draw_roots
from testgen.critic import answerable_call, grounded_call
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.question_types import QUESTION_TYPES, allocate, parse_distribution, renormalise
from testgen.settings import DEFAULT_K_NEIGHBOURS, GenerationSettings
from testgen.store import ChunkStore
from testgen.walkers import batch_sizes, start_walkers
from testgen.writers.llm import LLMWriter, writer_call

#: Sentences of a typical written answer (the critic's prompt restates the answer).
TYPICAL_ANSWER_SENTENCES = 2
#: The stop rules a first batch is planned under: the defaults.
_RULES = GenerationSettings()


def _targets(size: int, question_types: str | Mapping[str, float] | None) -> dict[str, int]:
    return allocate(size, renormalise(parse_distribution(question_types), QUESTION_TYPES)[0])


def _per_context(asked: int | None) -> int:
    return asked if asked is not None else LLMWriter.default_questions_per_context


def plan_types(
    size: int, *, questions_per_context: int | None = 1, question_types: str | Mapping[str, float] | None = None
) -> dict[str, int]:
    """Writer calls (contexts) per question type in the generator's first batch for `size` questions."""
    if size <= 0:
        return {}
    missing = {kind: count for kind, count in _targets(size, question_types).items() if count > 0}
    return batch_sizes(missing, Counter(), Counter(), _per_context(questions_per_context), _RULES.zero_yield_patience)


def plan_batch(
    chunks: Sequence[Chunk],
    *,
    size: int,
    seed: int = 0,
    questions_per_context: int | None = 1,
    question_types: str | Mapping[str, float] | None = None,
) -> list[tuple[Chunk, str]]:
    """(root, question type) of each writer call of the generator's first batch for `size` questions."""
    if size <= 0 or not chunks:
        return []
    per_context, most = _per_context(questions_per_context), _RULES.max_questions_per_context
    walkers = start_walkers(draw_roots(chunks, seed), _targets(size, question_types), per_context, most)
    wants = plan_types(size, questions_per_context=questions_per_context, question_types=question_types)
    return [(root, kind) for kind, want in wants.items() for root in walkers[kind].take(want)]


def plan_llm_calls(
    chunks: Sequence[Chunk],
    *,
    size: int,
    seed: int = 0,
    k_neighbours: int = DEFAULT_K_NEIGHBOURS,
    questions_per_context: int | None = None,
    question_types: str | Mapping[str, float] | None = None,
    critic: bool = True,
    max_question_words: int = DEFAULT_MAX_WORDS,
    store: ChunkStore | None = None,
) -> list[PlannedCall]:
    """The writer calls of the first batch and, with `critic`, the LLM critic's one call per context (its expected
    questions together), and for a multi-context one, a call per cited block asked alone.

    With a `store`, contexts are built as the generator builds them (nearest neighbours); without one, the
    neighbours are other roots. The critic's question and answer are typical stand-ins (a question of about
    0.6 x `max_question_words` words, the first two sentences of the cited block)."""
    per_context = _per_context(questions_per_context)
    pairs = plan_batch(chunks, size=size, seed=seed, questions_per_context=per_context, question_types=question_types)
    contexts = _contexts(store, chunks, pairs, k_neighbours, seed)
    question = "What is said about " + " ".join(["word"] * math.ceil(max_question_words * 0.6)) + "?"
    calls: list[PlannedCall] = []
    for context, (_, kind) in zip(contexts, pairs, strict=True):
        calls.append(writer_call(context, per_context, kind, max_question_words))  # type: ignore[arg-type]
        if critic:
            calls.append(critic_call(context, kind, question, per_context))
            if kind == "multi_context":  # the multi-hop check asks each cited block alone (`testgen.hop_critic`)
                cited = context.blocks[:2] if len(context.blocks) > 1 else []
                calls.extend(answerable_call([question] * per_context, [c.text], "multi_context") for c in cited)
    return calls


def critic_call(context: Context, question_type: str, question: str, questions: int = 1) -> PlannedCall:
    """The LLM critic's one call for `questions` typical drafts of `question_type` written from `context`."""
    if question_type == "unanswerable":
        return answerable_call([question] * questions, [chunk.text for chunk in context.blocks])
    cited = (1, 2) if question_type == "multi_context" and len(context.blocks) > 1 else (1,)
    pairs = [(question, typical_answer(context.root.text), cited)] * questions
    return grounded_call(pairs, [chunk.text for chunk in context.blocks], question_type)


def typical_answer(text: str) -> str:
    """The first sentences of `text`: what a written reference answer usually looks like."""
    return " ".join(split_sentences(text)[:TYPICAL_ANSWER_SENTENCES]) or text


def _contexts(
    store: ChunkStore | None, chunks: Sequence[Chunk], pairs: Sequence[tuple[Chunk, str]], k: int, seed: int
) -> list[Context]:
    roots = [root for root, _ in pairs]
    if store is not None:
        return build_contexts(store, roots, k)
    chosen = {root.chunk_id for root in roots}
    spare = [chunk for chunk in draw_roots(chunks, seed) if chunk.chunk_id not in chosen] or list(chunks)
    return [
        Context(root=root, neighbours=tuple(spare[(index * k + j) % len(spare)] for j in range(k)))
        for index, root in enumerate(roots)
    ]
