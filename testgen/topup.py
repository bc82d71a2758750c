"""Topping up a partial test set: a later generation keeps the samples an earlier, short one made and writes only the
missing ones, without asking the writer again for what it already wrote.

`PriorWork` is what the earlier run leaves: its kept samples (in order) and `walk`, the roots the writer wrote for
each question type, with how many questions it was asked and how many drafts came back (`WalkLog.record`), and the
roots it could write nothing from. Given one (`TestsetGenerator.agenerate(prior=...)`), the generator

- puts the kept samples first (`kept_samples`) and counts them toward their types (`fit_targets` keeps the set at
  `size` when they exceed a type's share), and remembers their questions for de-duplication and page shares;
- walks the roots as usual, but passes over a root the earlier run wrote for that type with as many questions
  (`take_unwritten`): it counts as tried for the stop rules, as in one long run, and when its write gave every
  question asked it is walked again with one more question on the next pass (a larger
  `max_questions_per_context`), where only the new drafts are screened.

Drafts the earlier run wrote but left unused (their type was full) are not recovered. The same store, writer, seed
and prior give the same samples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragtest_core.schema import TestSample
from testgen.chunking import Chunk
from testgen.stats import GenerationStats
from testgen.store import ChunkKey, ChunkStore
from testgen.walkers import Walker

#: The walk's JSON form: version 1.
WALK_VERSION = 1


@dataclass(frozen=True)
class Written:
    """One root written for one question type: the questions asked on its last write and the drafts it gave."""

    per_context: int
    drafts: int


@dataclass
class WalkLog:
    """The roots written for each type, this run's merged over an earlier run's (`prior`), which it answers about."""

    prior: Mapping[tuple[str, str], Written] = field(default_factory=dict)
    prior_barren: frozenset[tuple[str, str]] = frozenset()
    written: dict[tuple[str, str], Written] = field(default_factory=dict)
    barren: set[tuple[str, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.written = {**self.prior, **self.written}
        self.barren |= self.prior_barren

    def continued(self) -> WalkLog:
        """A log for the next run, with everything this one knows as its earlier run."""
        return WalkLog(prior=dict(self.written), prior_barren=frozenset(self.barren))

    def record(self, root_id: str, kind: str, per_context: int, drafts: int) -> None:
        before = self.written.get((root_id, kind))
        if before is None or per_context >= before.per_context:
            self.written[(root_id, kind)] = Written(per_context, drafts)

    def record_barren(self, root_id: str, kind: str) -> None:
        self.barren.add((root_id, kind))

    def earlier(self, root_id: str, kind: str, per_context: int) -> Written | None:
        """The earlier run's write of this root for this type, if it asked `per_context` questions or more."""
        done = self.prior.get((root_id, kind))
        return done if done is not None and done.per_context >= per_context else None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": WALK_VERSION,
            "written": [[root, kind, w.per_context, w.drafts] for (root, kind), w in sorted(self.written.items())],
            "barren": [list(pair) for pair in sorted(self.barren)],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WalkLog:
        if data.get("version") != WALK_VERSION:
            raise ValueError(f"unknown walk version {data.get('version')!r}")
        written = {(str(r), str(k)): Written(int(p), int(d)) for r, k, p, d in data.get("written", [])}
        barren = frozenset((str(r), str(k)) for r, k in data.get("barren", []))
        return cls(prior=written, prior_barren=barren)


@dataclass(frozen=True)
class PriorWork:
    """A partial set's samples, in order, and the walk that made them (`WalkLog.from_json` of its record)."""

    samples: tuple[TestSample, ...]
    walk: WalkLog = field(default_factory=WalkLog)

    def missing_from(self, store: ChunkStore) -> list[str]:
        """The chunks the kept samples stand on (roots and gold contexts: a top-up needs them) that the store no
        longer holds (their text changed or left the sources)."""
        ids = list(dict.fromkeys(cid for s in self.samples for cid in (s.root_id, *s.reference_context_ids) if cid))
        found = {chunk.chunk_id for chunk in store.get(ids)}
        return [cid for cid in ids if cid not in found]


def kept_samples(prior: PriorWork, store: ChunkStore) -> tuple[list[TestSample], dict[str, Chunk]]:
    """The kept samples, as the new set's first rows (their `corpus_id` naming this store's collection, which holds
    their chunks and the new ones'), and their root chunks by id."""
    kept = [s.model_copy(update={"corpus_id": store.collection_name}) for s in prior.samples]
    roots = {chunk.chunk_id: chunk for chunk in store.get([s.root_id for s in kept if s.root_id])}
    return kept, roots


def fit_targets(targets: dict[str, int], kept: Mapping[str, int]) -> None:
    """Raise each type's target to what the kept samples already give it, taking the excess from the other types
    (largest target first), so the targets still add up to the size."""
    excess = sum(max(0, kept.get(kind, 0) - target) for kind, target in targets.items())
    for kind in targets:
        targets[kind] = max(targets[kind], kept.get(kind, 0))
    while excess > 0 and (room := [k for k in targets if targets[k] > kept.get(k, 0)]):
        donor = max(room, key=lambda k: targets[k] - kept.get(k, 0))
        targets[donor] -= 1
        excess -= 1


def take_unwritten(
    walker: Walker[ChunkKey], kind: str, want: int, log: WalkLog, tried: Counter[str], stats: GenerationStats
) -> list[ChunkKey]:
    """The walker's next `want` roots but those the earlier run wrote for `kind` with as many questions (passed over,
    counted as tried, noted with what their write gave). With no earlier run this is `walker.take(want)`."""
    return [root for root in walker.take(want) if not _pass_over(root, kind, walker, log, tried, stats)]


def _pass_over(
    root: ChunkKey, kind: str, walker: Walker[ChunkKey], log: WalkLog, tried: Counter[str], stats: GenerationStats
) -> bool:
    if (root.chunk_id, kind) in log.prior_barren:
        walker.note(root, 0)
        stats.roots_skipped += 1
        return True
    if (done := log.earlier(root.chunk_id, kind, walker.per_context)) is None:
        return False
    # written with more questions than this pass asks: it gave at least this pass's (else it would not have been
    # walked again); written with as many: it gave what it gave
    walker.note(root, done.drafts if done.per_context == walker.per_context else walker.per_context)
    tried[kind] += 1
    stats.roots_skipped += 1
    return True
