"""The test-set generator: exactly `size` samples in a question-type distribution, from seeded, stratified roots.

Roots come from `draw_roots` (documents, then sections, in turn). The scheduler (`testgen.scheduler`) says what to
do next, round by round: write these roots for these question types, or screen the drafts of a tier that just
opened; the generator does it (the writer writes, the `Screen` checks) and tells the scheduler what came of it,
until the set is full or nothing is left. When the corpus gives too few, `ShortfallError` names the counts and what
would help, and carries the samples made (with `allow_fewer` they are returned, and `shortfall` says why). Given a
partial set's samples and walk (`prior`, `testgen.topup`), it keeps them first and writes only the missing ones.

What the generator reads is `GenerationSettings` (`testgen.settings`); what the writer can do is declared by the
`QuestionWriter` protocol. The same store contents, writer, settings (and LLM cache) give the same samples in the
same order.

The corpus is never read whole: roots are drawn from the store's `chunk_keys` (ids, documents, sections and
positions, no texts), each round's root chunks are fetched by id, and the offline writer reads a document's chunks
when it first writes from that document.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError, RagtestError
from ragtest_core.schema import CANONICAL_QUESTION, PERSONA, TestSample
from testgen.chunking import Chunk
from testgen.contexts import Context, build_contexts, draw_roots
from testgen.critic import Critic, LLMCritic, OfflineCritic
from testgen.filters import QuestionRules
from testgen.graph import CorpusGraph, along_graph, build_graph
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
        self.restyler = self._make_restyler()

    def _make_critic(self) -> Critic:
        llm = self.writer.llm
        if self.settings.critic == "llm" and llm is None:
            raise RagtestError("the LLM critic needs an LLM writer (or pass critic='offline')")
        if llm is not None and self.settings.critic in ("llm", "auto"):
            return LLMCritic(llm)
        return OfflineCritic(self.store.embedder)

    async def _derive_personas(self) -> list[Persona]:
        """`--personas auto`: personas from clusters of the corpus, named by the writer's LLM."""
        if self.writer.llm is None:
            raise RagtestError(f"--personas {AUTO} needs an LLM to describe who reads each part of the corpus")
        return await derive_personas(self.store, self.writer.llm, self.settings.seed)

    def _make_restyler(self) -> Restyler | None:
        styles = parse_choices(self.settings.query_styles, STYLES, "query style")
        lengths = parse_choices(self.settings.query_lengths, LENGTHS, "query length")
        return Restyler(styles, lengths, self.settings.seed, self.writer.llm) if styles or lengths else None

    @property
    def questions_per_context(self) -> int:
        """Where each type starts: the settings' number, else the writer's own (when a type's roots run out, it
        walks the roots that still had questions to give again, one more question each, up to
        `max_questions_per_context`)."""
        return self.settings.questions_per_context or self.writer.default_questions_per_context

    def stats_dict(self) -> dict[str, Any]:
        return self.stats.to_dict()

    def generate(self, *, prior: PriorWork | None = None, allow_fewer: bool = False) -> list[TestSample]:
        return run_sync(self.agenerate(prior=prior, allow_fewer=allow_fewer))

    async def agenerate(
        self, *, show_progress: bool = False, prior: PriorWork | None = None, allow_fewer: bool = False
    ) -> list[TestSample]:
        """Exactly `settings.size` samples in the configured type distribution; `ShortfallError` with the counts
        (and the samples made) if impossible, or, with `allow_fewer`, the samples made (`shortfall` says why).
        `prior` (a partial set, smaller than the size) is kept first."""
        size = self.settings.size
        if self.settings.personas == AUTO and not self.personas:
            self.personas = await self._derive_personas()
        screen, scheduler, samples = self._start(prior)
        progress = _progress(size, show_progress, len(samples))
        while (step := scheduler.next_step()) is not None:
            candidates = step.released or await self._write(step, scheduler)
            passed, spares = await screen.check(scheduler.hold(candidates), step.reserved, step.wanted)
            accepted = scheduler.place(passed, spares, step, screen)
            samples.extend(await self._samples(accepted, len(samples)))
            self.stats.count_accepted(candidate.draft for candidate in accepted)
            if progress is not None:
                progress.update(len(accepted))
        if progress is not None:
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
        keys = self.store.chunk_keys()
        if not keys:
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
        as_written = [_as_written(sample) for sample in samples]  # a styled row is checked as its question as written
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
        contexts = build_contexts(self.store, [chunks[key.chunk_id] for key, _ in pairs], self.settings.k_neighbours)
        contexts = self._along_graph(contexts, [kind for _, kind in pairs])
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

    def _along_graph(self, contexts: list[Context], kinds: Sequence[str]) -> list[Context]:
        """Multi-context questions from documentation follow the corpus graph: their roots' partners in other
        sections that the writer can join to the root (found by `_writable`) become the neighbours."""
        for i, (context, kind) in enumerate(zip(contexts, kinds, strict=True)):
            partners = self._partners.get(context.root.chunk_id, ()) if kind == "multi_context" else ()
            if partners:
                contexts[i] = replace(context, neighbours=partners, along_graph=True)
        return contexts

    def _joins(self, root: Chunk) -> bool:
        """Whether a multi-context root can be written: outside documentation always; in documentation when the
        corpus graph gives it a partner the writer can join it to (`testgen.graph`), kept for this round."""
        if root.heading_path is None:
            return True
        if self.graph is None:
            self.graph = build_graph(self.store)
        (context,) = along_graph(self.graph, self.store, [Context(root)], self.writer.can_join)
        self._partners[root.chunk_id] = context.neighbours if context.along_graph else ()
        return context.along_graph

    def _writable(
        self, pairs: Sequence[tuple[ChunkKey, str]], scheduler: Scheduler
    ) -> tuple[list[tuple[ChunkKey, str]], Mapping[str, Chunk]]:
        """The roots the writer can write from (`can_write`; a documentation multi-context root also needs a graph
        partner, `_joins`), with the chunks of all; the others are passed over."""
        chunks = self._root_chunks([key for key, _ in pairs])
        kept: list[tuple[ChunkKey, str]] = []
        self._partners = {}
        for key, kind in pairs:
            chunk = chunks[key.chunk_id]
            if self.writer.can_write(chunk, kind) and (kind != "multi_context" or self._joins(chunk)):  # type: ignore[arg-type]
                kept.append((key, kind))
            else:
                scheduler.pass_over(key, kind)
        return kept, chunks

    def _root_chunks(self, keys: Sequence[ChunkKey]) -> dict[str, Chunk]:
        """The stored chunks of this round's roots, by id."""
        found = {chunk.chunk_id: chunk for chunk in self.store.get([key.chunk_id for key in keys])}
        missing = [key.chunk_id for key in keys if key.chunk_id not in found]
        if missing:
            raise RagtestError(f"{len(missing)} root chunk(s) left the store while generating, e.g. {missing[0]}")
        return found

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

    def _sample(self, candidate: Candidate) -> TestSample:
        return candidate.to_sample(self.writer.name, self.store.collection_name)

    async def _samples(self, accepted: Sequence[Candidate], made: int) -> list[TestSample]:
        """The accepted candidates as samples (rows `made`, `made + 1`, ... of the set), each with its persona and in
        its turn's query style and length, when those are asked for."""
        samples = []
        for candidate in accepted:
            sample, persona = self._sample(candidate), candidate.context.persona
            if persona is not None:
                sample = TestSample.model_validate({**sample.model_dump(), PERSONA: persona.name})
            samples.append(sample)
        if self.restyler is None:
            return samples
        restyler = self.restyler
        return list(
            await asyncio.gather(
                *(
                    restyler.apply(sample, made + i, candidate.context.persona)
                    for i, (sample, candidate) in enumerate(zip(samples, accepted, strict=True))
                )
            )
        )


def _as_written(sample: TestSample) -> TestSample:
    """The sample with its canonical question (`testgen.styles`) as its question."""
    canonical = (sample.model_extra or {}).get(CANONICAL_QUESTION)
    return sample.model_copy(update={"question": canonical}) if canonical else sample


def _progress(total: int, enabled: bool, done: int = 0) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, desc="questions", unit="q")
