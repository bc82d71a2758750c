"""Each question type's walk over the seeded root order (see `testgen.generator`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Generic

from testgen.contexts import P

#: The most questions asked of one context when the roots run out (each pass over the roots asks one more).
MAX_QUESTIONS_PER_CONTEXT = 4


def start_walkers(roots: Sequence[P], targets: Mapping[str, int], per_context: int = 1) -> dict[str, Walker[P]]:
    """One walker per question type, each starting at its own share of the root order (all share one list)."""
    return {
        kind: Walker(roots, offset=i * len(roots) // max(1, len(targets)), per_context=per_context)
        for i, kind in enumerate(targets)
    }


class Walker(Generic[P]):
    """One question type's pointer over the root order, starting at `offset` (the order is shared, not copied). When
    the order is used up, the roots whose last write gave all the questions asked (they may have more) are walked
    again, one question more each."""

    def __init__(self, roots: Sequence[P], offset: int, per_context: int = 1) -> None:
        self.order = roots
        self.offset = offset
        self.next = 0
        self.per_context = per_context
        self.fruitful: list[P] = []
        self.stopped = False

    def left(self) -> int:
        return len(self.order) - self.next

    @property
    def active(self) -> bool:
        """Whether the walker can still give roots (this pass, or another pass with more questions a root)."""
        if self.stopped:
            return False
        if self.left() == 0 and self.fruitful and self.per_context < MAX_QUESTIONS_PER_CONTEXT:
            self.order, self.offset, self.next, self.fruitful = self.fruitful, 0, 0, []
            self.per_context += 1
        return self.left() > 0

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

    def stop(self) -> None:
        self.stopped = True
