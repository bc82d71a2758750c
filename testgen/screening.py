"""Every draft passes the same screen, in a fixed order, each rejection counted by reason:

1. the question rules (`filters.QuestionRules`: "?", no context words, not compound, word limit, language,
   specific, not a verbatim copy of the context);
2. type checks (a multi_context draft cites two blocks; a distracting draft names its distractor);
3. de-duplication over the whole set: the same normalised text ("duplicate"), or an embedding cosine above the
   threshold ("near_duplicate");
4. groundedness (answer supported by the cited blocks, every cited block contributing) or, for unanswerable
   drafts, absence (the question's neighbourhood in the store does not support the hypothesis).

Decisions depend only on the drafts' order, so the same inputs give the same accepted set.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragtest_core.embeddings import Embedder
from testgen.contexts import Context
from testgen.critic import Critic
from testgen.filters import QuestionRules, normalise_question
from testgen.store import ChunkStore
from testgen.writers.base import Draft

DEFAULT_DEDUP_THRESHOLD = 0.9
NEIGHBOURHOOD_K = 5


@dataclass(frozen=True)
class Candidate:
    """A draft with the context it was written from."""

    context: Context
    draft: Draft

    def gold_texts(self) -> list[str]:
        return [chunk.text for n in self.draft.blocks if (chunk := self.context.block(n)) is not None]


class Screen:
    """The filters of one generation run; `rejections` counts every rejection by reason."""

    def __init__(
        self,
        rules: QuestionRules,
        embedder: Embedder,
        critic: Critic,
        store: ChunkStore | None = None,
        dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD,
    ) -> None:
        self.rules = rules
        self.embedder = embedder
        self.critic = critic
        self.store = store
        self.dedup_threshold = dedup_threshold
        self.rejections: Counter[str] = Counter()
        self._keys: set[str] = set()
        self._vectors = np.zeros((0, 0), dtype=np.float32)

    def reject(self, reason: str) -> None:
        self.rejections[reason] += 1

    async def screen(self, candidates: Sequence[Candidate], wanted: dict[str, int]) -> list[Candidate]:
        """The candidates accepted, in order, at most `wanted[type]` per type (the rest are left unjudged)."""
        cheap = [c for c in candidates if self._cheap_reason(c) is None]
        fresh = self._not_duplicates(cheap, wanted)
        verdicts = await asyncio.gather(*(self._judge(c) for c in fresh))
        accepted: list[Candidate] = []
        taken: Counter[str] = Counter()
        for candidate, reason in zip(fresh, verdicts, strict=True):
            kind = candidate.draft.question_type
            if reason is not None:
                self.reject(reason)
            elif taken[kind] < wanted.get(kind, 0):
                taken[kind] += 1
                accepted.append(candidate)
                self._remember(candidate.draft.question)
        return accepted

    def _cheap_reason(self, candidate: Candidate) -> str | None:
        draft, context = candidate.draft, candidate.context
        reason = self.rules.reason(
            draft.question,
            draft.answer,
            language=context.language,
            contexts=[chunk.text for chunk in context.blocks],
        )
        if reason is None:
            reason = _type_problem(draft)
        if reason is not None:
            self.reject(reason)
        return reason

    def _not_duplicates(self, candidates: list[Candidate], wanted: dict[str, int]) -> list[Candidate]:
        if not candidates:
            return []
        questions = [c.draft.question for c in candidates]
        vectors = self.embedder.embed(questions)
        kept: list[Candidate] = []
        kept_vectors: list[np.ndarray] = []
        keys: set[str] = set()
        per_type: Counter[str] = Counter()
        for candidate, vector in zip(candidates, vectors, strict=True):
            key = normalise_question(candidate.draft.question)
            if key in self._keys or key in keys:
                self.reject("duplicate")
                continue
            if self._too_close(vector, kept_vectors):
                self.reject("near_duplicate")
                continue
            kind = candidate.draft.question_type
            if per_type[kind] >= wanted.get(kind, 0) + 2:  # enough to fill the type: judge no more now
                continue
            per_type[kind] += 1
            keys.add(key)
            kept.append(candidate)
            kept_vectors.append(vector)
        return kept

    def _too_close(self, vector: np.ndarray, batch: list[np.ndarray]) -> bool:
        if self._vectors.shape[0] and float((self._vectors @ vector).max()) > self.dedup_threshold:
            return True
        return any(float(other @ vector) > self.dedup_threshold for other in batch)

    def _remember(self, question: str) -> None:
        self._keys.add(normalise_question(question))
        vector = self.embedder.embed([question])
        self._vectors = vector if self._vectors.shape[0] == 0 else np.vstack([self._vectors, vector])

    async def _judge(self, candidate: Candidate) -> str | None:
        draft = candidate.draft
        if draft.question_type == "unanswerable":
            return await self.critic.unanswerable(draft, self._neighbourhood(candidate))
        return await self.critic.grounded(draft, candidate.gold_texts())

    def _neighbourhood(self, candidate: Candidate) -> list[str]:
        """The context's blocks plus the question's nearest chunks in the store."""
        texts = [chunk.text for chunk in candidate.context.blocks]
        if self.store is not None:
            hits = self.store.query([candidate.draft.question], k=NEIGHBOURHOOD_K)[0]
            texts.extend(hit.text for hit in hits if hit.text not in texts)
        return texts


def _type_problem(draft: Draft) -> str | None:
    if draft.question_type == "multi_context" and (len(set(draft.blocks)) < 2 or 1 not in draft.blocks):
        return "single_block_multi_context"
    if draft.question_type == "distracting" and not [b for b in draft.distractor_blocks if b not in draft.blocks]:
        return "no_distractor"
    return None
