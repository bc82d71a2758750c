"""What every question writer returns and the protocol it follows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from testgen.contexts import Context


@dataclass(frozen=True)
class Draft:
    """A written question with its answer and the block numbers (1 = root) the answer came from."""

    question: str
    answer: str
    blocks: tuple[int, ...] = (1,)


class QuestionWriter(Protocol):
    """Writes up to `n` question/answer drafts for a context; `name` fills each sample's `writer` column."""

    @property
    def name(self) -> str: ...

    @property
    def stats(self) -> Counter[str]: ...

    async def write(self, context: Context, n: int) -> list[Draft]: ...
