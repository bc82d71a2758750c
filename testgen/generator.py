"""The test-set generator: roots drawn with a seed, contexts from the store, a writer, filters, samples.

The same store contents, writer and seed give the same samples in the same order (byte-identical JSONL).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragtest.asyncio_utils import run_sync
from ragtest.errors import RagtestError
from ragtest.schema import TestSample, stable_id
from testgen.chunking import Chunk
from testgen.contexts import Context, build_contexts, draw_roots
from testgen.filters import DEFAULT_MAX_WORDS, QuestionFilter
from testgen.store import ChunkStore
from testgen.writers.base import Draft, QuestionWriter


@dataclass
class GenerationStats:
    """What one generation run did: for the run manifest."""

    chunks_available: int = 0
    roots_drawn: int = 0
    contexts_without_neighbours: int = 0
    candidates: int = 0
    accepted: int = 0
    rejections: Counter[str] = field(default_factory=Counter)
    writer: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunks_available": self.chunks_available,
            "roots_drawn": self.roots_drawn,
            "contexts_without_neighbours": self.contexts_without_neighbours,
            "candidates": self.candidates,
            "accepted": self.accepted,
            "rejections": dict(sorted(self.rejections.items())),
            "writer": dict(sorted(self.writer.items())),
        }


class TestsetGenerator:
    """Builds `TestSample`s from a filled `ChunkStore` with a question writer."""

    __test__ = False  # not a pytest class

    def __init__(
        self, store: ChunkStore, writer: QuestionWriter, *, max_question_words: int = DEFAULT_MAX_WORDS
    ):
        self.store = store
        self.writer = writer
        self.max_question_words = max_question_words
        self.stats = GenerationStats()

    def stats_dict(self) -> dict[str, Any]:
        return self.stats.to_dict()

    # --- a fixed number of contexts -------------------------------------------------------------------------

    async def agenerate(
        self, num_contexts: int, num_questions_per_context: int = 1, k_neighbours: int = 3, seed: int = 0
    ) -> list[TestSample]:
        """Samples from `num_contexts` roots (fewer when the store has fewer chunks), after the filters."""
        roots = self._start(seed)[:num_contexts]
        question_filter = QuestionFilter(max_words=self.max_question_words)
        samples = await self._run_batch(roots, num_questions_per_context, k_neighbours, question_filter)
        self._finish(question_filter)
        return samples

    def generate(
        self, num_contexts: int, num_questions_per_context: int = 1, k_neighbours: int = 3, seed: int = 0
    ) -> list[TestSample]:
        return run_sync(self.agenerate(num_contexts, num_questions_per_context, k_neighbours, seed))

    # --- a fixed number of samples --------------------------------------------------------------------------

    async def agenerate_size(
        self,
        size: int,
        seed: int = 0,
        *,
        num_questions_per_context: int = 1,
        k_neighbours: int = 3,
        show_progress: bool = False,
    ) -> list[TestSample]:
        """Exactly `size` samples, drawing roots until there are enough.

        Raises `RagtestError` with the counts when the corpus cannot supply `size` samples.
        """
        if size <= 0:
            return []
        roots = self._start(seed)
        question_filter = QuestionFilter(max_words=self.max_question_words)
        samples: list[TestSample] = []
        progress = _progress(size, show_progress)
        next_root = 0
        while len(samples) < size and next_root < len(roots):
            missing = size - len(samples)
            batch = max(4, -(-missing // max(1, num_questions_per_context)) + 2)
            chosen = roots[next_root : next_root + batch]
            next_root += len(chosen)
            new = await self._run_batch(chosen, num_questions_per_context, k_neighbours, question_filter)
            samples.extend(new[:missing])
            if progress is not None:
                progress.update(min(len(new), missing))
        if progress is not None:
            progress.close()
        self._finish(question_filter)
        self.stats.accepted = len(samples)
        if len(samples) < size:
            raise RagtestError(
                f"the corpus supplied only {len(samples)} of the {size} requested samples: "
                f"{self.stats.roots_drawn} contexts from {self.stats.chunks_available} chunks gave "
                f"{self.stats.candidates} candidate questions; "
                f"rejections: {dict(self.stats.rejections) or 'none'}; "
                f"writer: {self.stats.writer}. Add sources, lower --size or raise the questions per context."
            )
        return samples

    def generate_size(
        self, size: int, seed: int = 0, *, num_questions_per_context: int = 1, k_neighbours: int = 3
    ) -> list[TestSample]:
        return run_sync(
            self.agenerate_size(
                size, seed, num_questions_per_context=num_questions_per_context, k_neighbours=k_neighbours
            )
        )

    # --- shared steps ---------------------------------------------------------------------------------------

    def _start(self, seed: int) -> list[Chunk]:
        chunks = self.store.all_chunks()
        if not chunks:
            raise RagtestError("the chunk store is empty: add documents before generating questions")
        self.stats = GenerationStats(chunks_available=len(chunks))
        return draw_roots(chunks, seed)

    def _finish(self, question_filter: QuestionFilter) -> None:
        self.stats.rejections = Counter(question_filter.rejections)
        self.stats.writer = dict(self.writer.stats)

    async def _run_batch(
        self, roots: Sequence[Chunk], per_context: int, k_neighbours: int, question_filter: QuestionFilter
    ) -> list[TestSample]:
        contexts = build_contexts(self.store, roots, k_neighbours)
        self.stats.roots_drawn += len(contexts)
        self.stats.contexts_without_neighbours += sum(1 for c in contexts if not c.neighbours)
        drafts = await asyncio.gather(*(self.writer.write(context, per_context) for context in contexts))
        samples = []
        for context, written in zip(
            contexts, drafts, strict=True
        ):  # in root order: filters stay deterministic
            for draft in written:
                self.stats.candidates += 1
                if question_filter.check(draft.question, draft.answer) is None:
                    samples.append(self._sample(context, draft))
        self.stats.accepted += len(samples)
        return samples

    def _sample(self, context: Context, draft: Draft) -> TestSample:
        gold = [chunk for number in draft.blocks if (chunk := context.block(number)) is not None] or [
            context.root
        ]
        ids = [chunk.chunk_id for chunk in gold]
        first = gold[0]
        return TestSample(
            sample_id=stable_id(draft.question, *ids),
            question=draft.question,
            ground_truth=draft.answer,
            reference_contexts=[chunk.text for chunk in gold],
            reference_context_ids=ids,
            question_type="multi_context" if len(ids) >= 2 else "simple",
            source=first.source,
            source_url=first.url,
            source_revision=first.revision_id,
            root_id=context.root.chunk_id,
            neighbour_ids=[chunk.chunk_id for chunk in context.neighbours],
            language=context.language,
            writer=self.writer.name,
        )


def _progress(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="questions", unit="q")
