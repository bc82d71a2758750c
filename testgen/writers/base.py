"""What every question writer returns and the protocol it follows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from testgen.contexts import Context
from testgen.question_types import QuestionType

#: Writer stats named `rejected_<reason>` count questions the writer's own checks refused (grammar, definitions);
#: the generator adds them to the manifest's rejections by reason.
REJECTED_PREFIX = "rejected_"


@dataclass(frozen=True)
class Draft:
    """A written question with its answer and the block numbers (1 = root) the answer came from.

    `distractor_blocks`: for "distracting" questions, the neighbour whose detail the question mentions (not gold).
    `hypothesis`: for "unanswerable" questions, what an answer would have said; the groundedness filter checks
    that the corpus neighbourhood does NOT support it.
    `answer_span`: the short answer (a name, date or phrase) for exact match and token F1; `answer` is the full
    reference sentence(s).
    `evidence`: the source sentences the answer rests on, when the writer knows them (the offline writer): the
    groundedness check reads these instead of the answer, whose connecting words ("X was released first") are the
    writer's own.
    `strategy`: the offline writer's strategy (the manifest counts questions and rejections by strategy).
    `tier`: see the field.
    """

    question: str
    answer: str
    blocks: tuple[int, ...] = (1,)
    question_type: QuestionType = "simple"
    distractor_blocks: tuple[int, ...] = ()
    hypothesis: str | None = None
    answer_span: str | None = None
    evidence: tuple[str, ...] = ()
    #: How the offline writer made the question ("howto", "option", "sentence", ...); None for the LLM writer.
    strategy: str | None = None
    #: How early the draft is screened: 0 first. Drafts of kinds that read well less often (the offline writer's
    #: `testgen.writers.tiers.draft_tier`) wait until the earlier tiers cannot fill the test set (`testgen.screening`).
    tier: int = 0


class QuestionWriter(Protocol):
    """Writes up to `n` drafts of one question type for a context; `name` fills each sample's `writer` column.

    `supported_types` says which question types the writer can write honestly; the generator renormalises the
    asked-for distribution over them and records a warning for the others. A writer may also name its
    `default_questions_per_context` (1 when it does not).
    """

    @property
    def name(self) -> str: ...

    @property
    def stats(self) -> Counter[str]: ...

    @property
    def supported_types(self) -> frozenset[str]: ...

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]: ...
