"""What every question writer returns and the protocol it follows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from testgen.contexts import Context
from testgen.question_types import QuestionType


@dataclass(frozen=True)
class Draft:
    """A written question with its answer and the block numbers (1 = root) the answer came from.

    `distractor_blocks`: for "distracting" questions, the neighbour whose detail the question mentions (not gold).
    `hypothesis`: for "unanswerable" questions, what an answer would have said; the groundedness filter checks
    that the corpus neighbourhood does NOT support it.
    """

    question: str
    answer: str
    blocks: tuple[int, ...] = (1,)
    question_type: QuestionType = "simple"
    distractor_blocks: tuple[int, ...] = ()
    hypothesis: str | None = None


class QuestionWriter(Protocol):
    """Writes up to `n` drafts of one question type for a context; `name` fills each sample's `writer` column.

    `supported_types` says which question types the writer can write honestly; the generator renormalises the
    asked-for distribution over them and records a warning for the others.
    """

    @property
    def name(self) -> str: ...

    @property
    def stats(self) -> Counter[str]: ...

    @property
    def supported_types(self) -> frozenset[str]: ...

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]: ...
