"""The test-set generator: exactly `size` samples in a question-type distribution, from seeded, stratified roots.

Round by round the scheduler (`testgen.scheduler`) says what to do next (write these roots for these types, or
screen the drafts of a tier that just opened); the writer writes, the `Screen` checks, and the scheduler is told
what came of it, until the set is full or nothing is left. A short set raises `ShortfallError` with the samples
made (with `allow_fewer` they are returned, and `shortfall` says why); a partial set's samples and walk (`prior`,
`testgen.topup`) are kept first. The same store contents, writer, settings (and LLM cache) give the same samples
in the same order.

The corpus is never read whole: roots are drawn from the store's `chunk_keys` (no texts), each round's root chunks
are fetched by id, and the offline writer reads a document's chunks when it first writes from it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError, RagtestError
from ragtest_core.schema import CANONICAL_QUESTION, PERSONA, TestSample
from testgen.chunking import Chunk
from testgen.contexts import build_contexts, draw_roots
from testgen.critic import Critic, LLMCritic, OfflineCritic
from testgen.filters import QuestionRules
from testgen.graph import CorpusGraph, build_graph, joined_partners
from testgen.personas import AUTO, Persona, derive_personas, load_personas, steer_roots
from testgen.question_types import allocate, parse_distribution, renormalise
from testgen.scheduler import Scheduler, Step
from testgen.screening import Candidate, Screen
from testgen.settings import GenerationSettings
from testgen.stats import GenerationStats
from testgen.stopping import Shortfall, ShortfallError
from testgen.store import ChunkKey, ChunkStore
from testgen.styles import LENGTHS, STYLES, Restyler, parse_choices
from testgen.topup import PriorWork, WalkLog, kept_samples
from testgen.writers.base import QuestionWriter

__all__ = ["TestsetGenerator"]


class TestsetGenerator:
    """Builds `TestSample`s from a filled `ChunkStore` with a question writer, as `settings` say; `critic` replaces
    the one `settings.critic` names."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        store: ChunkStore,
        writer: QuestionWriter,
        settings: GenerationSettings | None = None,
        *,
        critic: Critic | None = None,
        graph: CorpusGraph | None = None,
    ) -> None:
        self.store = store
        #: The corpus graph multi-hop questions follow (built from the store when first needed, if not given).
        self.graph = graph
        self.writer = writer
        self.settings = settings or GenerationSettings()
        self.distribution = parse_distribution(self.settings.question_types)
        self.critic = critic or self._make_critic()
        self.stats = GenerationStats()
        #: Why the last `agenerate` made fewer samples than asked (None: it made them all).
        self.shortfall: Shortfall | None = None
        #: The roots the last generation wrote, for a later top-up (`testgen.topup`).
        self.walk = WalkLog()
        #: Chunk ids walked first as roots, in their seeded order (a refresh: the new and changed pages).
        self.first: frozenset[str] = frozenset()
        #: Who asks (`testgen.personas`) and each root's persona; how the questions are typed (`testgen.styles`).
        self.personas: list[Persona] = (
            load_personas(self.settings.personas) if self.settings.personas not in (None, AUTO) else []
        )
        self.persona_of: dict[str, Persona] = {}
        #: This round's multi-context documentation roots' graph partners, by root chunk id (`_joins`).
        self._partners: dict[str, tuple[Chunk, ...]] = {}
        styles = parse_choices(self.settings.query_styles, STYLES, "query style")
        lengths = parse_choices(self.settings.query_lengths, LENGTHS, "query length")
        self.restyler = Restyler(styles, lengths, self.settings.seed, writer.llm) if styles or lengths else None

    def _make_critic(self) -> Critic:
        llm = self.writer.llm
        if self.settings.critic == "llm" and llm is None:
            raise RagtestError("the LLM critic needs an LLM writer (or pass critic='offline')")
        if llm is not None and self.settings.critic in ("llm", "auto"):
            return LLMCritic(llm)
        return OfflineCritic(self.store.embedder)

    @property
    def questions_per_context(self) -> int:
        """Questions asked of a context at first: the settings' number, else the writer's own."""
        return self.settings.questions_per_context or self.writer.default_questions_per_context

    def generate(self, *, prior: PriorWork | None = None, allow_fewer: bool = False) -> list[TestSample]:
        return run_sync(self.agenerate(prior=prior, allow_fewer=allow_fewer))

    async def agenerate(
        self, *, show_progress: bool = False, prior: PriorWork | None = None, allow_fewer: bool = False
    ) -> list[TestSample]:
        """Exactly `settings.size` samples in the configured type distribution; `ShortfallError` with the counts
        (and the samples made) if impossible, or, with `allow_fewer`, the samples made (`shortfall` says why).
        `prior` (a partial set, smaller than the size) is kept first."""
        from tqdm import tqdm

        size = self.settings.size
        if self.settings.personas == AUTO and not self.personas:  # personas from clusters of the corpus
            if self.writer.llm is None:
                raise RagtestError(f"--personas {AUTO} needs an LLM to describe who reads each part of the corpus")
            self.personas = await derive_personas(self.store, self.writer.llm, self.settings.seed)
        screen, scheduler, samples = self._start(prior)
        progress = tqdm(total=size, initial=len(samples), desc="questions", unit="q", disable=not show_progress)
        while (step := scheduler.next_step()) is not None:
            candidates = step.released or await self._write(step, scheduler)
            passed, spares = await screen.check(scheduler.hold(candidates), step.reserved, step.wanted)
            accepted = scheduler.place(passed, spares, step, screen)
            samples.extend(await self._samples(accepted, len(samples)))
            self.stats.accepted_by_strategy.update(c.draft.strategy or "llm" for c in accepted)
            self.stats.accepted_by_tier.update(str(c.draft.tier) for c in accepted)
            progress.update(len(accepted))
        progress.close()
        self._finish(screen, scheduler, samples)
        if len(samples) < size:
            self.shortfall = Shortfall.of(self.stats, self.settings, self.writer, self.critic)
            if not allow_fewer and self.shortfall.llm_failure is not None:
                raise LLMError(self.shortfall.text())
            if not allow_fewer:
                raise ShortfallError(self.shortfall, samples)
        return samples

    def _start(self, prior: PriorWork | None) -> tuple[Screen, Scheduler, list[TestSample]]:
        """A run's screen and scheduler over the seeded root order, after the writer learnt from the corpus; with
        a partial set (`prior`), its samples, kept first (their questions remembered, their types and pages
        counted, their walk continued)."""
        if not (keys := self.store.chunk_keys()):
            raise RagtestError("the chunk store is empty: add documents before generating questions")
        self.writer.learn(self.store)
        self.stats = GenerationStats(
            chunks_available=len(keys), sources=sorted({k.source for k in keys}), critic=self.critic.name
        )
        self.shortfall, self.walk = None, prior.walk.continued() if prior is not None else WalkLog()
        settings = self.settings
        rules = QuestionRules(max_words=settings.max_question_words, max_copied_words=settings.max_copied_words)
        screen = Screen(rules, self.store.embedder, self.critic, self.store, settings.dedup_threshold)
        roots = sorted(draw_roots(keys, settings.seed), key=lambda key: key.chunk_id not in self.first)
        if self.personas:
            roots, self.persona_of = steer_roots(self.store, roots, self.personas)
        scheduler = Scheduler(settings, roots, self._targets(), self.questions_per_context, self.stats, self.walk)
        if prior is None:
            return screen, scheduler, []
        samples, by_id = kept_samples(prior, self.store)
        if len(samples) >= settings.size:
            raise RagtestError(
                f"the partial set to top up holds {len(samples)} samples, not fewer than {settings.size}"
            )
        as_written = [  # a styled row is checked as its question as written (`testgen.styles`)
            s.model_copy(update={"question": q}) if (q := (s.model_extra or {}).get(CANONICAL_QUESTION)) else s
            for s in samples
        ]
        screen.remember_samples(as_written, by_id)
        scheduler.keep(as_written, by_id)
        self.stats.kept = len(samples)
        return screen, scheduler, samples

    def _targets(self) -> dict[str, int]:
        """Questions per type: the distribution over the types the writer can write (a warning names the others
        when the user chose the mix; the default mix is simply what the writer can do)."""
        distribution, warnings = renormalise(self.distribution, self.writer.supported_types)
        if self.settings.question_types is not None:
            reason = self.writer.unsupported_reason
            self.stats.warnings.extend(warnings + ([reason] if warnings and reason else []))
        self.stats.distribution = dict(distribution)
        targets = allocate(self.settings.size, distribution)
        self.stats.requested_types = dict(targets)
        return targets

    async def _write(self, step: Step, scheduler: Scheduler) -> list[Candidate]:
        """The drafts of the step's roots the writer can write from, as candidates with their contexts."""
        pairs, chunks = self._writable(step.pairs, scheduler)
        if not pairs:
            return []
        scheduler.writing(pairs)
        built = build_contexts(self.store, [chunks[key.chunk_id] for key, _ in pairs], self.settings.k_neighbours)
        contexts = [  # a documentation multi-context root's neighbours: its graph partners (`_joins`)
            replace(context, neighbours=partners, along_graph=True)
            if kind == "multi_context" and (partners := self._partners.get(context.root.chunk_id))
            else context
            for context, (_, kind) in zip(built, pairs, strict=True)
        ]
        if self.persona_of:
            contexts = [replace(c, persona=self.persona_of.get(c.root.chunk_id)) for c in contexts]
        self.stats.roots_drawn += len(contexts)
        self.stats.contexts_without_neighbours += sum(1 for c in contexts if not c.neighbours)
        per_context = {kind: scheduler.walkers[kind].per_context for _, kind in pairs}
        written = await asyncio.gather(
            *(
                self.writer.write(context, per_context[kind], kind)  # type: ignore[arg-type]
                for context, (_, kind) in zip(contexts, pairs, strict=True)
            )
        )
        candidates = [
            Candidate(context, draft)
            for context, (root, kind), drafts in zip(contexts, pairs, written, strict=True)
            for draft in scheduler.written(root, kind, drafts)
        ]
        self.stats.candidates += len(candidates)
        return candidates

    def _joins(self, root: Chunk) -> bool:
        """Whether a multi-context root can be written: outside documentation always; in documentation when the
        corpus graph gives it a partner the writer can join it to (`testgen.graph`), kept for this round."""
        if root.heading_path is None:
            return True
        if self.graph is None:
            self.graph = build_graph(self.store)
        self._partners[root.chunk_id] = joined_partners(self.graph, self.store, root, self.writer.can_join)
        return bool(self._partners[root.chunk_id])

    def _writable(
        self, pairs: Sequence[tuple[ChunkKey, str]], scheduler: Scheduler
    ) -> tuple[list[tuple[ChunkKey, str]], Mapping[str, Chunk]]:
        """The roots the writer can write from (`can_write`; a documentation multi-context root also needs a graph
        partner, `_joins`), with the chunks of all; the others are passed over."""
        chunks = {chunk.chunk_id: chunk for chunk in self.store.get([key.chunk_id for key, _ in pairs])}
        if missing := [key.chunk_id for key, _ in pairs if key.chunk_id not in chunks]:
            raise RagtestError(f"{len(missing)} root chunk(s) left the store while generating, e.g. {missing[0]}")
        kept: list[tuple[ChunkKey, str]] = []
        self._partners = {}
        for key, kind in pairs:
            chunk = chunks[key.chunk_id]
            if self.writer.can_write(chunk, kind) and (kind != "multi_context" or self._joins(chunk)):  # type: ignore[arg-type]
                kept.append((key, kind))
            else:
                scheduler.pass_over(key, kind)
        return kept, chunks

    def _finish(self, screen: Screen, scheduler: Scheduler, samples: list[TestSample]) -> None:
        self.stats.rejections = Counter(screen.rejections)
        self.stats.rejected_by_strategy = Counter(screen.rejections_by_strategy)
        self.stats.add_writer_rejections(self.writer.stats)
        self.stats.unused = scheduler.unused
        self.stats.writer = dict(self.writer.stats)
        self.stats.accepted = len(samples)
        self.stats.produced_types = dict(scheduler.produced)
        self.stats.coverage = dict(sorted(Counter(s.source for s in samples).items()))
        self.stats.llm_calls = int(self.writer.stats.get("calls", 0)) + self.critic.calls
        if self.personas:
            self.stats.personas = dict(Counter(str(s.model_extra.get(PERSONA)) for s in samples if s.model_extra))
            self.stats.llm_calls += len(self.personas) if self.settings.personas == AUTO else 0
        if self.restyler is not None:
            self.stats.styles = dict(sorted(self.restyler.stats.items()))
            self.stats.llm_calls += self.restyler.stats["rewrite_calls"]

    async def _samples(self, accepted: Sequence[Candidate], made: int) -> list[TestSample]:
        """The accepted candidates as samples (rows `made`, `made + 1`, ... of the set), each with its persona and in
        its turn's query style and length, when those are asked for."""
        samples = []
        for candidate in accepted:
            sample = candidate.to_sample(self.writer.name, self.store.collection_name)
            if (persona := candidate.context.persona) is not None:
                sample = TestSample.model_validate({**sample.model_dump(), PERSONA: persona.name})
            samples.append(sample)
        if (restyler := self.restyler) is None:
            return samples
        pairs = enumerate(zip(samples, accepted, strict=True))
        return list(await asyncio.gather(*(restyler.apply(s, made + i, c.context.persona) for i, (s, c) in pairs)))
