"""What the generator does next: which roots to write for which question type, which waiting drafts to screen, and
where a draft that passed every check goes. One scheduler per `TestsetGenerator.agenerate` run.

- **Type quotas.** Each question type has a target (`targets`, summing to the size) and walks the seeded root
  order with its own pointer (`testgen.walkers.Walker`). A batch asks for more roots of a type whose yield so far is
  low (`batch_sizes`). A type the stop rules stop (`GenerationSettings.why_stop`), or whose roots run out, passes
  its missing count to the open type with the largest target, unless `strict_types`.
- **The reserve.** Drafts beyond what a type still needs passed the offline filters but wait, unjudged (or judged
  and not needed), and are screened first when the type needs more (a type filled by another's shortfall).
- **Tiers.** Drafts of a tier above the open one (`Draft.tier`: kinds that read well less often) wait apart,
  unscreened. The next tier opens when the roots run out, or after `tier_lookahead` written contexts per requested
  question without filling the set, up to `max_tier`.
- **The page share.** A documentation page that has given its share of the set (`GenerationSettings.page_quota`)
  gives more only from the next tier: a draft past the share that passed every check waits there once.
- **Top-ups** (`testgen.topup`): the kept samples count toward their types and pages, and roots an earlier run
  wrote are passed over (`take_unwritten`).

Reserved and held drafts count as unused at the end, so candidates = accepted + rejected + unused. Every decision
depends only on the order of the roots and drafts, so the same inputs give the same samples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ragtest_core.schema import TestSample
from testgen.chunking import Chunk
from testgen.question_types import QUESTION_TYPES
from testgen.screening import Candidate, Screen, draft_key
from testgen.settings import GenerationSettings
from testgen.stats import GenerationStats
from testgen.store import ChunkKey
from testgen.topup import WalkLog, fit_targets, take_unwritten
from testgen.walkers import batch_sizes, start_walkers
from testgen.writers.base import Draft


@dataclass
class Step:
    """One round of a generation: write `pairs` (root, question type) and screen their drafts after the `reserved`
    ones; or, with no writing, screen the `released` drafts of a tier that just opened. `wanted`: the questions
    each type still needs; `taken`: how many of them this round accepted so far."""

    wanted: dict[str, int]
    pairs: list[tuple[ChunkKey, str]] = field(default_factory=list)
    reserved: list[Candidate] = field(default_factory=list)
    released: list[Candidate] = field(default_factory=list)
    taken: Counter[str] = field(default_factory=Counter)


class Scheduler:
    """The state of one generation run between rounds: type quotas, walkers, the reserve, tiers, page shares."""

    def __init__(
        self,
        settings: GenerationSettings,
        roots: Sequence[ChunkKey],
        targets: dict[str, int],
        per_context: int,
        stats: GenerationStats,
        walk: WalkLog,
    ) -> None:
        self.settings = settings
        self.stats = stats
        #: The roots written for each type (this run's and, in a top-up, the earlier run's).
        self.walk = walk
        #: Questions each type must give (summing to the size; shares move when a type stops), gave, and contexts
        #: each type wrote (barren roots not counted).
        self.targets = targets
        self.produced: Counter[str] = Counter()
        self.tried: Counter[str] = Counter()
        self.walkers = start_walkers(roots, targets, per_context, settings.max_questions_per_context)
        #: The questions each (root, type) gave so far: a root asked again for more screens only its new ones.
        self.asked: dict[tuple[str, str], set[str]] = {}
        #: Drafts past their type's need, in order, screened first when the type needs more.
        self.reserve: list[Candidate] = []
        #: Drafts of a tier above `open_tier`, unscreened, in order; `opened_at`: contexts written (`tried`) when
        #: the open tier opened.
        self.held: list[Candidate] = []
        self.open_tier = 0
        self.opened_at = 0
        #: Questions each documentation page gave (by document id), and the drafts that waited a tier for it.
        self.page_quota = settings.page_quota()
        self.per_page: Counter[str] = Counter()
        self.deferred: set[tuple[str, str]] = set()

    @property
    def made(self) -> int:
        return sum(self.produced.values())

    @property
    def unused(self) -> int:
        return len(self.reserve) + len(self.held)

    def keep(self, samples: Sequence[TestSample], roots: Mapping[str, Chunk]) -> None:
        """A partial set's samples (a top-up), first: counted toward their types (whose targets grow to hold them)
        and pages (`roots`: their root chunks by id), and as asked of their roots."""
        for sample in samples:
            self._count_page(roots.get(sample.root_id))
            self.asked.setdefault((sample.root_id, sample.question_type), set()).add(sample.question)
        self.produced.update(sample.question_type for sample in samples)
        fit_targets(self.targets, self.produced)

    # --- what to do next --------------------------------------------------------------------------------------

    def next_step(self) -> Step | None:
        """The next round, or None when the set is full or nothing is left to write or screen."""
        while self.made < self.settings.size:
            self._stop_barren_types()
            self._pass_on_shares(self._missing())
            missing = self._missing()
            tried = sum(self.tried.values())
            if self.held and tried - self.opened_at >= self.settings.tier_lookahead * self.settings.size:
                self.opened_at = tried  # looked far enough: the next tier joins the open ones
                if released := self._release_held():
                    return Step(missing, released=released)
            reserved = self._take_reserve(missing)
            skipped = self.stats.roots_skipped  # roots a partial set's run wrote (a top-up): not written again
            pairs = self._plan(missing) if len(reserved) < sum(missing.values()) else []
            if not pairs and not reserved and self.stats.roots_skipped > skipped:
                continue  # every root of this batch was written before: walk on
            if pairs or reserved:
                return Step(missing, pairs=pairs, reserved=reserved)
            if released := self._release_held():  # the open tiers are spent: the next tier fills the gap
                self.opened_at = sum(self.tried.values())
                return Step(missing, released=released)
            return None
        return None

    def _missing(self) -> dict[str, int]:
        return {
            kind: target - self.produced[kind] for kind, target in self.targets.items() if target > self.produced[kind]
        }

    def _stop_barren_types(self) -> None:
        """Stop a type the stop rules stop (a warning says so; its share goes to the other types)."""
        for kind, walker in self.walkers.items():
            if self.targets.get(kind, 0) <= self.produced[kind] or not walker.active:
                continue
            if (why := self.settings.why_stop(self.produced[kind], self.tried[kind])) is not None:
                walker.stopped = True
                self.stats.warnings.append(f"question type {kind!r}: {why}; stopped early")

    def _pass_on_shares(self, missing: Mapping[str, int]) -> None:
        """Move the missing count of types that can give no more (no roots left, no drafts waiting in the reserve
        or a later tier) to the open type with the largest target (none with `strict_types`: the set then falls
        short). A type is open while it has roots to walk or drafts waiting."""
        waiting = {c.draft.question_type for c in [*self.reserve, *self.held]}
        for kind, count in missing.items():
            if self.walkers[kind].active or kind in waiting:
                continue
            open_kinds = [k for k in self.targets if self.walkers[k].active or k in waiting]
            if self.settings.strict_types or not open_kinds:
                continue
            heir = max(open_kinds, key=lambda k: (self.targets[k], -QUESTION_TYPES.index(k)))
            self.targets[kind] -= count
            self.targets[heir] += count
            self.stats.warnings.append(
                f"question type {kind!r}: the corpus gave only {self.targets[kind]} of {self.targets[kind] + count}; "
                f"{count} filled with {heir!r}"
            )

    def _plan(self, missing: Mapping[str, int]) -> list[tuple[ChunkKey, str]]:
        """(root, type) pairs for the next batch: more roots for types whose yield so far is low."""
        pairs: list[tuple[ChunkKey, str]] = []
        patience = self.settings.zero_yield_patience
        for kind in missing:
            walker = self.walkers[kind]
            want = batch_sizes({kind: missing[kind]}, self.produced, self.tried, walker.per_context, patience)[kind]
            taken = take_unwritten(walker, kind, want, self.walk, self.tried, self.stats)
            pairs.extend((root, kind) for root in taken)
        return pairs

    def _take_reserve(self, wanted: Mapping[str, int]) -> list[Candidate]:
        """The reserved drafts of the types in `wanted`, in order."""
        taken = [c for c in self.reserve if wanted.get(c.draft.question_type, 0) > 0]
        self.reserve = [c for c in self.reserve if wanted.get(c.draft.question_type, 0) <= 0]
        return taken

    def _release_held(self) -> list[Candidate]:
        """Open the next tier that has held drafts: its drafts, in the order they came (later ones of that tier are
        no longer held); [] when nothing is held, or when the next tier is above `max_tier`."""
        next_tier = min((self._rank(c) for c in self.held), default=None)
        max_tier = self.settings.max_tier
        if next_tier is None or (max_tier is not None and next_tier > max_tier):
            return []
        self.open_tier = next_tier
        released = [c for c in self.held if self._rank(c) <= self.open_tier]
        self.held = [c for c in self.held if self._rank(c) > self.open_tier]
        return released

    # --- what the round did -----------------------------------------------------------------------------------

    def pass_over(self, root: ChunkKey, kind: str) -> None:
        """A root the writer can write nothing from: passed over, not counted against the stop rules."""
        self.walkers[kind].note(root, 0)
        self.walk.record_barren(root.chunk_id, kind)
        self.stats.roots_barren += 1

    def writing(self, pairs: Sequence[tuple[ChunkKey, str]]) -> None:
        """The roots this round writes, counted as tried by their type."""
        self.tried.update(kind for _, kind in pairs)

    def written(self, root: ChunkKey, kind: str, drafts: Sequence[Draft]) -> list[Draft]:
        """What one root gave: noted for its walker and the walk record; the drafts not screened before."""
        walker = self.walkers[kind]
        walker.note(root, len(drafts))
        self.walk.record(root.chunk_id, kind, walker.per_context, len(drafts))
        asked = self.asked.setdefault((root.chunk_id, kind), set())
        fresh: list[Draft] = []
        for draft in drafts:
            if draft.question not in asked:  # else: the same root asked again, this question screened before
                asked.add(draft.question)
                fresh.append(draft)
        return fresh

    def hold(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """The candidates of the open tiers, to screen now; the others wait in `held`."""
        self.held.extend(c for c in candidates if self._rank(c) > self.open_tier)
        return [c for c in candidates if self._rank(c) <= self.open_tier]

    def place(
        self, passed: Sequence[Candidate], spares: Sequence[Candidate], step: Step, screen: Screen
    ) -> list[Candidate]:
        """Where the drafts that passed every check go, in order: rejected when an accepted question already
        repeats them, to the next tier when their page gave its share, accepted while their type needs more
        (`screen` remembers them), else to the reserve (with the `spares` past their type's need). The accepted."""
        self.reserve.extend(spares)
        accepted: list[Candidate] = []
        for candidate in passed:
            kind = candidate.draft.question_type
            if screen.repeats_accepted(candidate):
                continue
            if self._page_full(candidate):
                self.deferred.add(draft_key(candidate))
                self.stats.page_deferred += 1
                self.held.append(candidate)
            elif step.taken[kind] < step.wanted.get(kind, 0):
                step.taken[kind] += 1
                self.produced[kind] += 1
                self._count_page(candidate.context.root)
                screen.remember(candidate)
                accepted.append(candidate)
            else:
                self.reserve.append(candidate)
        return accepted

    def _rank(self, candidate: Candidate) -> int:
        """The tier a draft is screened in: its own, or the next when its page had given its share first."""
        return candidate.draft.tier + (draft_key(candidate) in self.deferred)

    def _page_full(self, candidate: Candidate) -> bool:
        """Whether a documentation draft's page has given its quota and the draft has not waited a tier for it yet
        (it waits once, in the next tier: `_rank`; its own tier is unchanged)."""
        root = candidate.context.root
        if self.page_quota is None or root.heading_path is None or draft_key(candidate) in self.deferred:
            return False
        return self.per_page[root.doc_id] >= self.page_quota

    def _count_page(self, root: Chunk | None) -> None:
        if root is not None and root.heading_path is not None:
            self.per_page[root.doc_id] += 1
