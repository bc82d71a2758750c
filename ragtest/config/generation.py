"""How the test set is written: size, seed, chunking, question rules, types and the stop rules."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from ragtest.config.parsing import separators_in, separators_out
from ragtest.settings import Opt, Section, flag_of
from testgen import ChunkingConfig, StopRules
from testgen.contexts import DEFAULT_K_NEIGHBOURS
from testgen.filters import DEFAULT_MAX_COPIED_WORDS, DEFAULT_MAX_WORDS
from testgen.screening import DEFAULT_DEDUP_THRESHOLD

_CHUNKING = ChunkingConfig()
_STOP = StopRules()
DEFAULT_SEPARATORS: tuple[str, ...] = _CHUNKING.separators


class GenerationConfig(Section):
    """How the test set is written."""

    group = "generation"

    size: Annotated[int, Field(ge=1, description="questions to generate")] = 20
    seed: Annotated[int, Field(description="random seed: the same sources and seed give the same test set")] = 42
    k_neighbours: Annotated[
        int, Field(ge=0, description="neighbour chunks joined to each root chunk as its context")
    ] = DEFAULT_K_NEIGHBOURS
    questions_per_context: Annotated[
        int | None,
        Field(ge=1, description="questions asked of each context (more when roots run out)"),
        Opt(default_text="1 offline, 2 with an LLM writer"),
    ] = None
    chunk_size: Annotated[int, Field(ge=1, description="characters per chunk at most")] = _CHUNKING.chunk_size
    chunk_overlap: Annotated[int, Field(ge=0, description="characters neighbouring chunks share")] = (
        _CHUNKING.chunk_overlap
    )
    separators: Annotated[
        tuple[str, ...],
        Field(description="where chunks may be cut, tried in order (backslash escapes such as \\n work)"),
        Opt(
            nargs="+",
            metavar="SEP",
            parse=separators_in,
            render=separators_out,
            default_text=" ".join(repr(s) for s in DEFAULT_SEPARATORS) + ", then ' ' and ''",
        ),
    ] = DEFAULT_SEPARATORS
    max_question_words: Annotated[
        int, Field(ge=1, description="words a question may have at most (Chinese and Japanese: two characters a word)")
    ] = DEFAULT_MAX_WORDS
    question_types: Annotated[
        str | None,
        Field(
            description="type mix, e.g. simple=0.5,multi_context=0.25,unanswerable=0.25 (types: simple, reasoning, "
            "multi_context, conditional, unanswerable, distracting)"
        ),
        Opt(default_text="what the writer can do: simple and multi_context offline, every type with an LLM"),
    ] = None
    dedup_threshold: Annotated[
        float, Field(gt=0.0, le=1.0, description="embedding cosine above which two questions are duplicates")
    ] = DEFAULT_DEDUP_THRESHOLD
    max_copied_words: Annotated[
        int, Field(ge=1, description="longest run of words a question may copy from its context")
    ] = DEFAULT_MAX_COPIED_WORDS
    critic: Annotated[
        Literal["auto", "llm", "offline"],
        Field(description="groundedness check: the LLM critic or the offline support check (auto: LLM when given)"),
    ] = "auto"
    strict_types: Annotated[bool, Field(description="fail instead of filling a type's shortfall with other types")] = (
        False
    )
    allow_fewer: Annotated[
        bool,
        Field(
            description="accept a test set smaller than --size when the sources give no more (exit 0; its manifest "
            "still marks it partial and says why); without it, the questions made are written and the command "
            "stops with exit 2"
        ),
    ] = False
    zero_yield_patience: Annotated[
        int,
        Field(
            ge=1,
            description="contexts a question type may try without any question before it stops early (roots the "
            "writer can turn nothing from are passed over, not counted)",
        ),
    ] = _STOP.zero_yield_patience
    low_yield_contexts: Annotated[
        int, Field(ge=1, description="contexts after which a type with a yield under --low-yield-rate stops early")
    ] = _STOP.low_yield_contexts
    low_yield_rate: Annotated[
        float, Field(ge=0.0, le=1.0, description="questions a context a type must reach (0: never stop for it)")
    ] = _STOP.low_yield_rate
    max_questions_per_context: Annotated[
        int, Field(ge=1, description="questions one context may be asked at most when the roots run out")
    ] = _STOP.max_questions_per_context
    tier_lookahead: Annotated[
        int,
        Field(
            ge=1,
            description="contexts written per requested question before drafts of kinds that read well less often "
            "(offline documentation: defaults, turned sentences, how-to answers naming no means) are screened",
        ),
    ] = _STOP.tier_lookahead
    max_tier: Annotated[
        int | None,
        Field(
            ge=0,
            description="the last tier of offline documentation drafts that may fill the set (0: definitions, "
            "options, FAQ entries and how-tos naming their means only; fewer questions, read good more often)",
        ),
        Opt(default_text="every tier"),
    ] = _STOP.max_tier
    page_share: Annotated[
        float,
        Field(
            gt=0.0,
            le=1.0,
            description="the share of the set one documentation page may fill before its further questions wait "
            "for the next tier (1: no limit)",
        ),
    ] = _STOP.page_share

    #: The settings a partial test set may be topped up under when they differ from its manifest (`--size`, and
    #: those that only decide how far the search goes): any other generation setting changes the questions, so a
    #: later generate that changes one starts afresh (`ragtest.partial_testsets`).
    TOP_UP_FREE: ClassVar[frozenset[str]] = frozenset(
        {
            "size",
            "allow_fewer",
            "zero_yield_patience",
            "low_yield_contexts",
            "low_yield_rate",
            "max_questions_per_context",
            "tier_lookahead",
        }
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> GenerationConfig:
        if self.chunk_overlap >= self.chunk_size:
            overlap, size = flag_of(GenerationConfig, "chunk_overlap"), flag_of(GenerationConfig, "chunk_size")
            raise ValueError(f"{overlap} ({self.chunk_overlap}) must be smaller than {size} ({self.chunk_size})")
        return self

    def chunking(self) -> ChunkingConfig:
        return ChunkingConfig(chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap, separators=self.separators)

    def stop_rules(self) -> StopRules:
        return StopRules(
            zero_yield_patience=self.zero_yield_patience,
            low_yield_contexts=self.low_yield_contexts,
            low_yield_rate=self.low_yield_rate,
            max_questions_per_context=self.max_questions_per_context,
            tier_lookahead=self.tier_lookahead,
            max_tier=self.max_tier,
            page_share=self.page_share,
        )
