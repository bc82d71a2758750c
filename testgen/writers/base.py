"""What every question writer returns and the protocol it follows; what the offline sentence rules make of one
sentence (`Turned`), which the documentation checks read too."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.question_types import QUESTION_TYPES, QuestionType

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models, the store Chroma's client
    from ragtest_core.llm.client import LLMClient
    from testgen.store import ChunkStore

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
    `evidence`: the source sentences the answer rests on, when the writer knows them (the offline writer), which the
    groundedness check reads instead of the answer and its connecting words ("X was released first").
    """

    question: str
    answer: str
    blocks: tuple[int, ...] = (1,)
    question_type: QuestionType = "simple"
    distractor_blocks: tuple[int, ...] = ()
    hypothesis: str | None = None
    answer_span: str | None = None
    evidence: tuple[str, ...] = ()
    #: How the offline writer made the question ("howto", "option", "sentence", ...; the manifest counts by it); None
    #: for the LLM writer.
    strategy: str | None = None
    #: How early the draft is screened: 0 first. Drafts of kinds that read well less often (the offline writer's
    #: `testgen.writers.docs.tiers.draft_tier`) wait until the earlier tiers cannot fill the test set
    #: (`testgen.screening`).
    tier: int = 0


class QuestionWriter(Protocol):
    """Writes up to `n` drafts of one question type for a context; `name` fills each sample's `writer` column. What
    else a writer can do is declared here with its default, and a writer inherits this class to take the defaults it
    keeps (the generator asks every writer the same things)."""

    #: The question types it writes honestly: the generator renormalises the asked-for mix over them and, when the
    #: user chose the mix, warns about the others with `unsupported_reason`.
    supported_types: frozenset[str] = frozenset(QUESTION_TYPES)
    unsupported_reason: str = ""
    #: Questions asked of one context unless the settings say.
    default_questions_per_context: int = 1
    #: The writer's LLM client (None offline): the "auto" critic is then the LLM critic; `last_error`, the last failed
    #: call's error, for the message of a run whose calls failed (`stats["calls"]`, `stats["failed_calls"]`).
    llm: LLMClient | None = None
    last_error: str | None = None

    name: str
    #: Counts of what the writer did (the manifest reports them; refusals as `rejected_<reason>`).
    stats: Counter[str]

    def learn(self, store: ChunkStore) -> None:
        """Learn what writing needs from the corpus in `store` (the offline writer: casing, headings; by default
        nothing)."""
        return None  # not abstract: an empty body would make the method abstract to a type checker

    def can_write(self, root: Chunk, question_type: QuestionType = "simple") -> bool:
        """Whether `root` gives anything to write a `question_type` question from (by default: always); a root that
        gives nothing is passed over without counting against the stop rules."""
        return True

    def can_join(self, root: Chunk, partner: Chunk) -> bool:
        """Whether a multi-hop question can join `root` and one of its corpus-graph partners (by default: always;
        `testgen.graph.along_graph` keeps the partners it can)."""
        return True

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]: ...


@dataclass(frozen=True)
class Turned:
    """A question turned from one sentence by the offline rules, its answer (a span of the sentence) and the rule
    that made it."""

    question: str
    answer: str
    rule: str
    subject: str = ""  # the subject as it appears in the question ("" when the question has no subject slot)
