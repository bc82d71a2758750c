"""Each question type's walk over the seeded root order (see `testgen.scheduler`): its own pointer over the roots,
and how many roots the next batch asks for. Used by the scheduler and the planner (`testgen.planning`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Generic

from testgen.contexts import P
from testgen.question_types import QUESTION_TYPES

MAX_BATCH = 48


def start_walkers(roots: Sequence[P], targets: Mapping[str, int], per_context: int, most: int) -> dict[str, Walker[P]]:
    """One walker per question type, each starting at its own share of the root order (all share one list), asking
    `per_context` questions of a root and, on later passes, one more each, up to `most`."""
    return {
        kind: Walker(roots, offset=i * len(roots) // max(1, len(targets)), per_context=per_context, most=most)
        for i, kind in enumerate(targets)
    }


def batch_sizes(
    missing: Mapping[str, int], produced: Mapping[str, int], tried: Mapping[str, int], per_context: int, patience: int
) -> dict[str, int]:
    """Roots per question type for the next batch (type order): more for types whose yield so far is low, and no
    more than the zero-yield `patience` allows for a type that has given nothing yet."""
    wants: dict[str, int] = {}
    for kind in (kind for kind in QUESTION_TYPES if kind in missing):
        rate = (produced.get(kind, 0) + 1) / (tried.get(kind, 0) * per_context + 1)
        want = min(MAX_BATCH, math.ceil(missing[kind] / max(per_context * rate, 0.05)))
        if produced.get(kind, 0) == 0:
            want = min(want, max(missing[kind], patience - tried.get(kind, 0)))
        wants[kind] = want
    return wants


class Walker(Generic[P]):
    """One question type's pointer over the root order, starting at `offset` (the order is shared, not copied). When
    the order is used up, the roots whose last write gave all the questions asked (they may have more) are walked
    again, one question more each, up to `most`."""

    def __init__(self, roots: Sequence[P], offset: int, per_context: int, most: int) -> None:
        self.order: Sequence[P] = roots
        self.offset = offset
        self.next = 0
        self.per_context = per_context
        self.most = most
        self.fruitful: list[P] = []
        self.stopped = False

    @property
    def active(self) -> bool:
        """Whether the walker can still give roots (this pass, or another pass with more questions a root)."""
        if self.stopped:
            return False
        if self.next == len(self.order) and self.fruitful and self.per_context < self.most:
            self.order, self.offset, self.next, self.fruitful = self.fruitful, 0, 0, []
            self.per_context += 1
        return self.next < len(self.order)

    def take(self, count: int) -> list[P]:
        if not self.active:
            return []
        size = len(self.order)
        chosen = [self.order[(self.offset + i) % size] for i in range(self.next, min(size, self.next + count))]
        self.next += len(chosen)
        return chosen

    def note(self, root: P, written: int) -> None:
        if written >= self.per_context:
            self.fruitful.append(root)
