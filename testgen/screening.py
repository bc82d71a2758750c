"""Every draft passes the same screen, in a fixed order, each rejection counted by reason:

1. the question rules (`filters.QuestionRules`: "?", no context words, not compound, word limit, language,
   specific, not a verbatim copy of the context);
2. type checks (a multi_context draft cites two blocks; a distracting draft names its distractor);
3. question-answer relevance (`relevance`: the reference answer addresses the question);
4. de-duplication over the whole set: the same normalised text ("duplicate"), an embedding cosine above the
   threshold ("near_duplicate"), or, for documentation, the reference of a question already asked
   ("duplicate_reference");
5. the critic, last and only on drafts that passed every offline filter, one context's drafts together:
   groundedness (answer supported by the cited blocks, every cited block contributing) or, for unanswerable
   drafts, absence (the questions' neighbourhood in the store does not support their hypotheses).

Drafts past what a type still needs (plus `JUDGE_SPARES`) are not judged: `check` returns them as spares, and the
scheduler (`testgen.scheduler`) keeps them in its reserve, as it holds drafts of later tiers and drafts past their
page's share. Decisions depend only on the drafts' order, so the same inputs give the same accepted set.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragtest_core.embeddings import Embedder
from ragtest_core.schema import HOPS, TestSample, stable_id
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.critic import Critic
from testgen.filters import QuestionRules, normalise_question
from testgen.relevance import answer_relevance, is_relevant
from testgen.settings import DEFAULT_DEDUP_THRESHOLD
from testgen.store import ChunkStore
from testgen.writers.base import Draft

NEIGHBOURHOOD_K = 5
#: Drafts judged per type and batch beyond what the type still needs (spares for critic rejections).
JUDGE_SPARES = 2


@dataclass(frozen=True)
class Candidate:
    """A draft with the context it was written from."""

    context: Context
    draft: Draft

    def to_sample(self, writer: str, corpus_id: str) -> TestSample:
        """The test sample: the draft's question and answer, its gold chunks (none for an unanswerable question;
        the root when the draft names no block) and where they came from."""
        context, draft = self.context, self.draft
        gold = [chunk for n in draft.blocks if (chunk := context.block(n)) is not None] or [context.root]
        gold = [] if draft.question_type == "unanswerable" else gold
        ids = [chunk.chunk_id for chunk in gold]
        root = context.root
        return TestSample(
            sample_id=stable_id(draft.question, *ids, root.chunk_id),
            question=draft.question,
            ground_truth=draft.answer,
            reference_contexts=[chunk.text for chunk in gold],
            reference_context_ids=ids,
            question_type=draft.question_type,
            source=root.source,
            source_url=root.url,
            source_revision=root.revision_id,
            root_id=root.chunk_id,
            neighbour_ids=[chunk.chunk_id for chunk in context.neighbours],
            language=context.language,
            writer=writer,
            answer_span=draft.answer_span,
            corpus_id=corpus_id,
            **({HOPS: len(ids)} if len(ids) > 1 else {}),
        )


class Screen:
    """The checks of one generation run and the questions it accepted (which later drafts may not repeat);
    `rejections` counts every rejection by reason, `rejections_by_strategy` by the offline writer's strategy."""

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
        #: Rejections by the offline writer's strategy of the draft ("howto", "sentence", ...; "llm" otherwise).
        self.rejections_by_strategy: Counter[str] = Counter()
        self._keys: set[str] = set()  # accepted questions, normalised
        self._references: set[str] = set()  # documentation answers already asked
        self._vectors = np.zeros((0, 0), dtype=np.float32)  # accepted questions, embedded
        self._passed: set[tuple[str, str]] = set()  # judged good before (drafts that waited in the reserve)

    def reject(self, reason: str, candidate: Candidate) -> None:
        self.rejections[reason] += 1
        self.rejections_by_strategy[candidate.draft.strategy or "llm"] += 1

    async def check(
        self, candidates: Sequence[Candidate], reserved: Sequence[Candidate], wanted: Mapping[str, int]
    ) -> tuple[list[Candidate], list[Candidate]]:
        """The drafts that pass every check, in order, and the spares: drafts past a type's need (plus
        `JUDGE_SPARES`) that passed the offline filters and were not judged (they wait in the reserve).

        `reserved` drafts passed the offline filters before: they go first, to de-duplication and the critic."""
        fresh = [c for c in candidates if self._offline_reason(c) is None]
        fresh = self._relevant(fresh)
        to_judge, spares = self._not_duplicates([*reserved, *fresh], wanted)
        verdicts = await self._judge(to_judge)
        passed: list[Candidate] = []
        for candidate, reason in zip(to_judge, verdicts, strict=True):
            if reason is not None:
                self.reject(reason, candidate)
                continue
            self._passed.add(draft_key(candidate))
            passed.append(candidate)
        return passed, spares

    def repeats_accepted(self, candidate: Candidate) -> bool:
        """Whether an accepted question already repeats this one (a reserved draft judged in an earlier batch);
        such a draft is rejected as a near duplicate."""
        key = normalise_question(candidate.draft.question)
        seen = key in self._keys or _reference_key(candidate) in self._references
        if seen or self._too_close(self.embedder.embed([candidate.draft.question])[0], []):
            self.reject("near_duplicate", candidate)
            return True
        return False

    def remember(self, candidate: Candidate) -> None:
        """An accepted draft: later drafts may not repeat it."""
        draft = candidate.draft
        self._remember([(candidate.context.root, draft.question, draft.question_type, draft.answer)])

    def remember_samples(self, samples: Sequence[TestSample], roots: Mapping[str, Chunk]) -> None:
        """Samples a partial set already holds (a top-up, `testgen.topup`), as if accepted here: later drafts may
        not repeat them (`roots`: their root chunks by id)."""
        self._remember([(roots.get(s.root_id), s.question, s.question_type, s.ground_truth) for s in samples])

    def _remember(self, accepted: Sequence[tuple[Chunk | None, str, str, str]]) -> None:
        """(root, question, type, answer) of questions later drafts may not repeat."""
        if not accepted:
            return
        for root, question, question_type, answer in accepted:
            self._keys.add(normalise_question(question))
            if (reference := _reference_of(root, question_type, answer)) is not None:
                self._references.add(reference)
        vectors = self.embedder.embed([question for _, question, _, _ in accepted])
        self._vectors = vectors if self._vectors.shape[0] == 0 else np.vstack([self._vectors, vectors])

    def _offline_reason(self, candidate: Candidate) -> str | None:
        draft, context = candidate.draft, candidate.context
        contexts = [chunk.text for chunk in context.blocks]
        reason = self.rules.reason(draft.question, draft.answer, language=context.language, contexts=contexts)
        if (reason := reason or _type_problem(draft)) is not None:
            self.reject(reason, candidate)
        return reason

    def _relevant(self, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates whose reference answer addresses the question (unanswerable ones have a refusal)."""
        checked = [c for c in candidates if c.draft.question_type != "unanswerable"]
        scores = answer_relevance(self.embedder, [c.draft.question for c in checked], [c.draft.answer for c in checked])
        off_topic = [
            c for c, score in zip(checked, scores, strict=True) if not is_relevant(float(score), c.draft.answer)
        ]
        for candidate in off_topic:
            self.reject("answer_not_relevant", candidate)
        return [c for c in candidates if c not in off_topic]

    def _not_duplicates(
        self, candidates: list[Candidate], wanted: Mapping[str, int]
    ) -> tuple[list[Candidate], list[Candidate]]:
        """Candidates that repeat no accepted or earlier question, and those past a type's need (plus spares)."""
        if not candidates:
            return [], []
        vectors = self.embedder.embed([c.draft.question for c in candidates])
        kept: list[Candidate] = []
        spares: list[Candidate] = []
        kept_vectors: list[np.ndarray] = []
        keys, references = set(self._keys), set(self._references)  # the accepted questions' and the kept ones'
        per_type: Counter[str] = Counter()
        for candidate, vector in zip(candidates, vectors, strict=True):
            key, reference = normalise_question(candidate.draft.question), _reference_key(candidate)
            kind = candidate.draft.question_type
            if key in keys:
                self.reject("duplicate", candidate)
            elif reference is not None and reference in references:
                self.reject("duplicate_reference", candidate)
            elif self._too_close(vector, kept_vectors):
                self.reject("near_duplicate", candidate)
            elif per_type[kind] >= wanted.get(kind, 0) + JUDGE_SPARES:  # enough to fill the type: judge no more now
                spares.append(candidate)
            else:
                per_type[kind] += 1
                keys.add(key)
                if reference is not None:
                    references.add(reference)
                kept.append(candidate)
                kept_vectors.append(vector)
        return kept, spares

    def _too_close(self, vector: np.ndarray, batch: list[np.ndarray]) -> bool:
        if self._vectors.shape[0] and float((self._vectors @ vector).max()) > self.dedup_threshold:
            return True
        return any(float(other @ vector) > self.dedup_threshold for other in batch)

    async def _judge(self, candidates: list[Candidate]) -> list[str | None]:
        """The critic's verdicts, one context's drafts per request, in the candidates' order."""
        groups: dict[tuple[str, str], list[int]] = {}
        for index, candidate in enumerate(candidates):
            if draft_key(candidate) in self._passed:
                continue  # judged good in an earlier batch: no second request
            groups.setdefault((candidate.context.root.chunk_id, candidate.draft.question_type), []).append(index)
        results = await asyncio.gather(*(self._judge_group([candidates[i] for i in g]) for g in groups.values()))
        verdicts: list[str | None] = [None] * len(candidates)
        for indices, reasons in zip(groups.values(), results, strict=True):
            for index, reason in zip(indices, reasons, strict=True):
                verdicts[index] = reason
        return verdicts

    async def _judge_group(self, group: list[Candidate]) -> list[str | None]:
        drafts = [c.draft for c in group]
        if drafts[0].question_type == "unanswerable":
            return await self.critic.unanswerable_many(drafts, self._neighbourhood(group))
        return await self.critic.grounded_many(drafts, [chunk.text for chunk in group[0].context.blocks])

    def _neighbourhood(self, group: list[Candidate]) -> list[str]:
        """The context's blocks plus each question's nearest chunks in the store."""
        texts = [chunk.text for chunk in group[0].context.blocks]
        if self.store is not None:
            for hits in self.store.query([c.draft.question for c in group], k=NEIGHBOURHOOD_K):
                texts.extend(hit.text for hit in hits if hit.text not in texts)
        return texts


def _reference_key(candidate: Candidate) -> str | None:
    return _reference_of(candidate.context.root, candidate.draft.question_type, candidate.draft.answer)


def _reference_of(root: Chunk | None, question_type: str, answer: str) -> str | None:
    """A simple documentation question's reference, normalised: one documentation sentence answers one question
    of a set ("How do you add extensions?" and "How do you add extensions after creation time?", both answered by
    "To add extensions after creation time, use ...", are one question asked twice). None for other questions
    (an encyclopedia sentence may answer a "when" and a "who")."""
    if root is None or root.heading_path is None or question_type != "simple":
        return None
    return normalise_question(answer)


def draft_key(candidate: Candidate) -> tuple[str, str]:
    """A draft's identity: its root and its question."""
    return candidate.context.root.chunk_id, candidate.draft.question


def _type_problem(draft: Draft) -> str | None:
    if draft.question_type == "multi_context" and (len(set(draft.blocks)) < 2 or 1 not in draft.blocks):
        return "single_block_multi_context"
    if draft.question_type == "distracting" and not [b for b in draft.distractor_blocks if b not in draft.blocks]:
        return "no_distractor"
    return None
