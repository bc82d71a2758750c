"""The offline question writer: English declarative sentences turned into wh-questions by fixed rules.

Deterministic for a given seed. The answer is always a span of the source sentence and the gold context is the
block (chunk) holding that sentence. Non-English contexts are skipped and counted (`stats["non_english"]`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from ragtest.text import split_sentences
from testgen.contexts import Context
from testgen.writers.base import Draft
from testgen.writers.patterns import Skip, proper_nouns, turn_sentence


@dataclass(frozen=True)
class Candidate:
    question: str
    answer: str
    block: int
    sentence: str
    rule: str


class ExtractiveWriter:
    """Rule-based wh-questions from the context's sentences; the root's sentences come first."""

    name = "extractive"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._stats: Counter[str] = Counter()

    @property
    def stats(self) -> Counter[str]:
        """Counts: sentences seen, sentences turned, skips by reason, non-English contexts."""
        return self._stats

    async def write(self, context: Context, n: int) -> list[Draft]:
        return self.write_sync(context, n)

    def write_sync(self, context: Context, n: int) -> list[Draft]:
        if context.language != "en":
            self._stats["non_english"] += 1
            return []
        rng = random.Random(f"{self.seed}:{context.root.chunk_id}")
        names = proper_nouns("\n".join(chunk.text for chunk in context.blocks))
        ordered: list[Candidate] = []
        seen: set[str] = set()
        for number, chunk in enumerate(context.blocks, start=1):
            found = [c for c in self.candidates(chunk.text, number, names) if c.question.lower() not in seen]
            seen.update(c.question.lower() for c in found)
            rng.shuffle(found)
            ordered.extend(found)  # root candidates first, each block's own order seeded
        return [Draft(c.question, c.answer, (c.block,)) for c in ordered[:n]]

    def candidates(self, text: str, block: int, names: frozenset[str] = frozenset()) -> list[Candidate]:
        """Every sentence of `text` that a rule turns, in text order (stats count every sentence)."""
        found = []
        for sentence in split_sentences(text, "en"):
            self._stats["sentences"] += 1
            try:
                turned = turn_sentence(sentence, names)
            except Skip as skip:
                self._stats[f"skip_{skip.reason}"] += 1
                continue
            self._stats["turned"] += 1
            found.append(Candidate(turned.question, turned.answer, block, sentence, turned.rule))
        return found
