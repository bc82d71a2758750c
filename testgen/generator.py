"""The test-set generator: exactly `size` samples in a question-type distribution, from seeded, stratified roots.

Roots come from `draw_roots` (documents, then sections, in turn). Each question type walks the roots with its
own pointer, so types start on different roots. Batches ask the writer for the types still missing (more roots
for types whose yield is low), the `Screen` filters and de-duplicates, and the loop draws new roots until every
type is full. A type the corpus cannot fill is topped up with other types (a warning in the stats) unless
`strict_types`; when nothing more can be drawn, `ShortfallError` names the counts and what would help, and carries
the samples made (with `allow_fewer` they are returned, and `shortfall` says why). Given a partial set's samples and
walk (`prior`, `testgen.topup`), it keeps them first and writes only the missing ones.

Drafts come in tiers (`Draft.tier`; the offline documentation writer ranks its strategies by how often their
questions read well): a tier joins the screened ones when the roots run out, or after `StopRules.tier_lookahead`
written contexts per requested question without filling the set, so a large corpus gives its best kinds of question
and a small one still gives every question it can.

The same store contents, writer, seed (and LLM cache) give the same samples in the same order.

The corpus is never read whole: roots are drawn from the store's `chunk_keys` (ids, documents, sections and
positions, no texts), each batch's root chunks are fetched by id, and the offline writer reads a document's chunks
when it first writes from that document.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError, RagtestError
from ragtest_core.schema import TestSample
from testgen.chunking import Chunk
from testgen.contexts import DEFAULT_K_NEIGHBOURS, build_contexts, draw_roots
from testgen.critic import Critic, LLMCritic, OfflineCritic
from testgen.filters import DEFAULT_MAX_COPIED_WORDS, DEFAULT_MAX_WORDS, QuestionRules
from testgen.question_types import QUESTION_TYPES, allocate, parse_distribution, renormalise
from testgen.screening import DEFAULT_DEDUP_THRESHOLD, Candidate, Screen
from testgen.stats import GenerationStats
from testgen.stopping import Shortfall, ShortfallError, StopRules, pass_on_shares, stop_barren_types
from testgen.store import ChunkKey, ChunkStore
from testgen.structure import PATH_SEPARATOR
from testgen.topup import PriorWork, WalkLog, fit_targets, keep, kept_counts, take_unwritten
from testgen.walkers import Walker, batch_sizes, missing_counts, start_walkers
from testgen.writers.base import QuestionWriter

__all__ = ["TestsetGenerator", "batch_sizes", "start_walkers"]


class TestsetGenerator:
    """Builds `TestSample`s from a filled `ChunkStore` with a question writer."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        store: ChunkStore,
        writer: QuestionWriter,
        *,
        max_question_words: int = DEFAULT_MAX_WORDS,
        question_types: str | Mapping[str, float] | None = None,
        dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD,
        max_copied_words: int = DEFAULT_MAX_COPIED_WORDS,
        critic: Critic | str = "auto",
        strict_types: bool = False,
        stop_rules: StopRules | None = None,
    ) -> None:
        self.store = store
        self.writer = writer
        self.max_question_words = max_question_words
        self.distribution = parse_distribution(question_types)
        #: Whether the user chose the mix: only then is a type the writer cannot do worth a warning.
        self.types_asked = question_types is not None
        self.dedup_threshold = dedup_threshold
        self.max_copied_words = max_copied_words
        self.critic = self._make_critic(critic)
        self.strict_types = strict_types
        self.stop_rules = stop_rules or StopRules()
        problems = self.stop_rules.problems()
        if problems:
            raise RagtestError("; ".join(problems))
        self.stats = GenerationStats()
        #: Why the last `agenerate_size` made fewer samples than asked (None: it made them all).
        self.shortfall: Shortfall | None = None
        #: The roots the last generation wrote, for a later top-up (`testgen.topup`).
        self.walk = WalkLog()

    def _make_critic(self, critic: Critic | str) -> Critic:
        if not isinstance(critic, str):
            return critic
        llm = getattr(self.writer, "llm", None)
        if critic == "llm" or (critic == "auto" and llm is not None):
            if llm is None:
                raise RagtestError("the LLM critic needs an LLM writer (or pass critic='offline')")
            return LLMCritic(llm)
        if critic in ("auto", "offline"):
            return OfflineCritic(self.store.embedder)
        raise RagtestError(f"unknown critic {critic!r}: use 'auto', 'llm' or 'offline'")

    def stats_dict(self) -> dict[str, Any]:
        return self.stats.to_dict()

    # --- exactly `size` samples -----------------------------------------------------------------------------

    async def agenerate_size(
        self,
        size: int,
        seed: int = 0,
        *,
        num_questions_per_context: int | None = None,
        k_neighbours: int = DEFAULT_K_NEIGHBOURS,
        show_progress: bool = False,
        prior: PriorWork | None = None,
        allow_fewer: bool = False,
    ) -> list[TestSample]:
        """Exactly `size` samples in the configured type distribution; `ShortfallError` with the counts (and the
        samples made) if impossible, or, with `allow_fewer`, the samples made (`shortfall` says why).

        `num_questions_per_context` (None: the writer's default) is where each type starts; when a type's roots run
        out, it walks the roots that still had questions to give again, asking one more question each, up to
        the stop rules' `max_questions_per_context`. `prior` (a partial set, fewer than `size`) is kept first."""
        if size <= 0:
            return []
        roots, screen = self._start(seed)
        screen.page_quota = self.stop_rules.page_quota(size)
        samples: list[TestSample] = []
        if prior is not None:  # a top-up: the partial set first, its walk as the earlier run's
            self.walk = prior.walk.continued()
            samples = keep(prior, self.store, screen, self._asked, self.stats)
        if len(samples) >= size:
            raise RagtestError(f"the partial set to top up holds {len(samples)} samples, not fewer than {size}")
        produced = kept_counts(samples)
        targets = self._targets(size)
        fit_targets(targets, produced)
        per_context = self._per_context(num_questions_per_context)
        walkers = start_walkers(roots, targets, per_context, self.stop_rules.max_questions_per_context)
        tried: Counter[str] = Counter()
        opened_at = 0  # contexts written when the open tier of drafts opened
        max_tier = self.stop_rules.max_tier
        progress = _progress(size, show_progress, len(samples))
        while len(samples) < size:
            stop_barren_types(walkers, produced, tried, targets, self.stop_rules, self.stats.warnings)
            missing = missing_counts(targets, produced)
            pass_on_shares(missing, targets, walkers, self.strict_types, self.stats.warnings)
            missing = missing_counts(targets, produced)
            if screen.held and sum(tried.values()) - opened_at >= self.stop_rules.tier_lookahead * size:
                opened_at = sum(tried.values())  # looked far enough in the open tiers: the next tier joins them
                if released := screen.release_held(max_tier):
                    self._accept(await screen.screen(released, missing), samples, produced, progress)
                    continue
            reserved = screen.take_reserve(missing)
            passed_over = self.stats.roots_skipped  # roots a partial set's run wrote (a top-up): not written again
            pairs = self._plan(missing, walkers, produced, tried) if len(reserved) < sum(missing.values()) else []
            if not pairs and not reserved and self.stats.roots_skipped > passed_over:
                continue  # every root of this batch was written before: walk on
            if pairs or reserved:
                pairs, fetched = self._writable(pairs, walkers)
                for _, kind in pairs:
                    tried[kind] += 1
                accepted = await self._run(pairs, walkers, k_neighbours, screen, missing, reserved, fetched)
            elif held := screen.release_held(max_tier):  # the open tiers are spent: the next tier fills the gap
                opened_at = sum(tried.values())
                accepted = await screen.screen(held, missing)
            else:
                break
            self._accept(accepted, samples, produced, progress)
        if progress is not None:
            progress.close()
        self._finish(screen, samples, produced)
        if len(samples) < size:
            self.shortfall = Shortfall.of(self.stats, size, self.stop_rules, self.writer, self.critic)
            if not allow_fewer and self.shortfall.llm_failure is not None:
                raise LLMError(self.shortfall.text())
            if not allow_fewer:
                raise ShortfallError(self.shortfall, samples)
        return samples

    def _accept(
        self, accepted: Sequence[Candidate], samples: list[TestSample], produced: Counter[str], progress: Any
    ) -> None:
        for candidate in accepted:
            samples.append(self._sample(candidate))
            produced[candidate.draft.question_type] += 1
        self.stats.count_accepted(candidate.draft for candidate in accepted)
        if progress is not None:
            progress.update(len(accepted))

    def generate_size(
        self,
        size: int,
        seed: int = 0,
        *,
        num_questions_per_context: int | None = None,
        k_neighbours: int = DEFAULT_K_NEIGHBOURS,
        prior: PriorWork | None = None,
        allow_fewer: bool = False,
    ) -> list[TestSample]:
        return run_sync(
            self.agenerate_size(
                size,
                seed,
                num_questions_per_context=num_questions_per_context,
                k_neighbours=k_neighbours,
                prior=prior,
                allow_fewer=allow_fewer,
            )
        )

    # --- a fixed number of contexts (no size guarantee) ------------------------------------------------------

    async def agenerate(
        self,
        num_contexts: int,
        num_questions_per_context: int = 1,
        k_neighbours: int = DEFAULT_K_NEIGHBOURS,
        seed: int = 0,
    ) -> list[TestSample]:
        """Samples from the first `num_contexts` roots, types dealt out in the configured distribution."""
        roots, screen = self._start(seed)
        screen.open_all()  # no size to fill first: every draft is screened as it comes
        roots = roots[:num_contexts]
        counts = self._targets(len(roots))
        kinds = [kind for kind in QUESTION_TYPES for _ in range(counts.get(kind, 0))]
        pairs = list(zip(roots, kinds, strict=True))
        walkers = start_walkers(roots, counts, num_questions_per_context)
        unlimited = {kind: len(roots) * num_questions_per_context for kind in counts}
        accepted = await self._run(pairs, walkers, k_neighbours, screen, unlimited)
        samples = [self._sample(c) for c in accepted]
        self.stats.count_accepted(c.draft for c in accepted)
        self._finish(screen, samples, Counter(c.draft.question_type for c in accepted))
        return samples

    def generate(
        self,
        num_contexts: int,
        num_questions_per_context: int = 1,
        k_neighbours: int = DEFAULT_K_NEIGHBOURS,
        seed: int = 0,
    ) -> list[TestSample]:
        return run_sync(self.agenerate(num_contexts, num_questions_per_context, k_neighbours, seed))

    # --- steps ----------------------------------------------------------------------------------------------

    def _start(self, seed: int) -> tuple[list[ChunkKey], Screen]:
        keys = self.store.chunk_keys()
        if not keys:
            raise RagtestError("the chunk store is empty: add documents before generating questions")
        self._prepare_writer()
        self.stats = GenerationStats(
            chunks_available=len(keys), sources=sorted({k.source for k in keys}), critic=self.critic.name
        )
        self._asked: dict[tuple[str, str], set[str]] = {}
        self.shortfall, self.walk = None, WalkLog()
        rules = QuestionRules(max_words=self.max_question_words, max_copied_words=self.max_copied_words)
        screen = Screen(rules, self.store.embedder, self.critic, self.store, self.dedup_threshold)
        return draw_roots(keys, seed), screen

    def _prepare_writer(self) -> None:
        """Let the writer learn from the corpus: document by document on demand (`use_documents`), or, for a
        writer that only has `prepare`, from every chunk at once."""
        use_documents = getattr(self.writer, "use_documents", None)
        if callable(use_documents):
            use_documents(self.store.document_chunks)
            use_corpus = getattr(self.writer, "use_corpus", None)
            if callable(use_corpus):  # the documentation's headings and a phrase's page count, not its texts
                keys = [key for key in self.store.chunk_keys() if key.heading_path]
                paths = {key.heading_path or "" for key in keys}
                use_corpus(
                    {part.strip() for path in paths for part in path.split(PATH_SEPARATOR)},
                    self.store.documents_containing,
                    len({key.source for key in keys}),
                )
            return
        prepare = getattr(self.writer, "prepare", None)
        if callable(prepare):
            prepare(self.store.all_chunks())

    def _targets(self, size: int) -> dict[str, int]:
        supported = getattr(self.writer, "supported_types", frozenset(QUESTION_TYPES))
        distribution, warnings = renormalise(self.distribution, supported)
        reason = getattr(self.writer, "unsupported_reason", "")
        if self.types_asked:  # the default mix is simply what the writer can do (stats.distribution says which)
            self.stats.warnings.extend(warnings + ([reason] if warnings and reason else []))
        self.stats.distribution = dict(distribution)
        targets = allocate(size, distribution)
        self.stats.requested_types = dict(targets)
        return targets

    def _plan(
        self,
        missing: dict[str, int],
        walkers: dict[str, Walker[ChunkKey]],
        produced: Counter[str],
        tried: Counter[str],
    ) -> list[tuple[ChunkKey, str]]:
        """(root, type) pairs for the next batch: more roots for types whose yield so far is low."""
        pairs: list[tuple[ChunkKey, str]] = []
        for kind in missing:
            walker = walkers[kind]
            want = batch_sizes(
                {kind: missing[kind]}, produced, tried, walker.per_context, self.stop_rules.zero_yield_patience
            )[kind]
            pairs.extend((root, kind) for root in take_unwritten(walker, kind, want, self.walk, tried, self.stats))
        return pairs

    async def _run(
        self,
        pairs: Sequence[tuple[ChunkKey, str]],
        walkers: Mapping[str, Walker[ChunkKey]],
        k_neighbours: int,
        screen: Screen,
        wanted: dict[str, int],
        reserved: Sequence[Candidate] = (),
        roots: Mapping[str, Chunk] | None = None,
    ) -> list[Candidate]:
        chunks = [roots[key.chunk_id] for key, _ in pairs] if roots is not None else None
        contexts = build_contexts(self.store, chunks or self._root_chunks([key for key, _ in pairs]), k_neighbours)
        self.stats.roots_drawn += len(contexts)
        self.stats.contexts_without_neighbours += sum(1 for c in contexts if not c.neighbours)
        written = await asyncio.gather(
            *(
                self.writer.write(context, walkers[kind].per_context, kind)  # type: ignore[arg-type]
                for context, (_, kind) in zip(contexts, pairs, strict=True)
            )
        )
        candidates: list[Candidate] = []
        for context, (root, kind), drafts in zip(contexts, pairs, written, strict=True):
            walkers[kind].note(root, len(drafts))
            self.walk.record(root.chunk_id, kind, walkers[kind].per_context, len(drafts))
            asked = self._asked.setdefault((root.chunk_id, kind), set())
            for draft in drafts:
                if draft.question in asked:
                    continue  # the same root asked again for more questions: this one was screened before
                asked.add(draft.question)
                candidates.append(Candidate(context, draft))
        self.stats.candidates += len(candidates)
        return await screen.screen(candidates, wanted, reserved)

    def _writable(
        self, pairs: list[tuple[ChunkKey, str]], walkers: Mapping[str, Walker[ChunkKey]]
    ) -> tuple[list[tuple[ChunkKey, str]], dict[str, Chunk]]:
        """The batch's roots the writer can write from (its `can_write`, when it has one), with their chunks; a
        root it cannot write from is passed over (`stats.roots_barren`), not counted against the stop rules."""
        chunks = {chunk.chunk_id: chunk for chunk in self._root_chunks([key for key, _ in pairs])}
        can_write = getattr(self.writer, "can_write", None)
        if not callable(can_write):
            return pairs, chunks
        kept: list[tuple[ChunkKey, str]] = []
        for key, kind in pairs:
            if can_write(chunks[key.chunk_id], kind):
                kept.append((key, kind))
            else:
                walkers[kind].note(key, 0)
                self.walk.record_barren(key.chunk_id, kind)
                self.stats.roots_barren += 1
        return kept, chunks

    def _root_chunks(self, keys: Sequence[ChunkKey]) -> list[Chunk]:
        """The stored chunks of this batch's roots, in order."""
        found = {chunk.chunk_id: chunk for chunk in self.store.get([key.chunk_id for key in keys])}
        missing = [key.chunk_id for key in keys if key.chunk_id not in found]
        if missing:
            raise RagtestError(f"{len(missing)} root chunk(s) left the store while generating, e.g. {missing[0]}")
        return [found[key.chunk_id] for key in keys]

    def _per_context(self, asked: int | None) -> int:
        if asked is not None:
            if asked < 1:
                raise RagtestError(f"questions per context must be at least 1, got {asked}")
            return asked
        return self.default_questions_per_context()

    def default_questions_per_context(self) -> int:
        """The writer's own number of questions per context (1 when it names none)."""
        return int(getattr(self.writer, "default_questions_per_context", 1))

    def _finish(self, screen: Screen, samples: list[TestSample], produced: Counter[str]) -> None:
        self.stats.rejections = Counter(screen.rejections)
        self.stats.rejected_by_strategy = Counter(screen.rejections_by_strategy)
        self.stats.add_writer_rejections(self.writer.stats)
        self.stats.unused = screen.unused
        self.stats.page_deferred = screen.page_deferred
        self.stats.writer = dict(self.writer.stats)
        self.stats.accepted = len(samples)
        self.stats.produced_types = dict(produced)
        self.stats.coverage = dict(sorted(Counter(s.source for s in samples).items()))
        self.stats.llm_calls = int(self.writer.stats.get("calls", 0)) + int(getattr(self.critic, "calls", 0))

    def _sample(self, candidate: Candidate) -> TestSample:
        return candidate.to_sample(self.writer.name, self.store.collection_name)


def _progress(total: int, enabled: bool, done: int = 0) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, desc="questions", unit="q")
