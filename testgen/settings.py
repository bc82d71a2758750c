"""How the generator writes a test set: every setting it reads, declared once (type, default, validation, help).

`GenerationSettings` is what `TestsetGenerator` takes; the app's `generation` settings section derives from it
(`ragtest.config.generation`), so the CLI flags, `make_config` and the manifest read these fields as declared here.

The stop rules are fields here too, with the methods the scheduler (`testgen.scheduler`) consults: `why_stop`
(a question type stops early), `page_quota` (a documentation page's share of the set), `tier_lookahead` and
`max_tier` (when a later tier of drafts joins). A new stop rule is one field plus its use in one of them.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from testgen.filters import DEFAULT_MAX_COPIED_WORDS, DEFAULT_MAX_WORDS
from testgen.styles import LENGTHS, STYLES, parse_choices

#: Neighbour chunks shown with each root chunk (the "K" of root + K neighbours).
DEFAULT_K_NEIGHBOURS = 2
#: Cosine above which two questions are near-duplicates (`testgen.screening`).
DEFAULT_DEDUP_THRESHOLD = 0.9


class GenerationSettings(BaseModel):
    """How the test set is written: its size and seed, the question rules and type mix, and the stop rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    size: Annotated[int, Field(ge=1, description="questions to generate")] = 20
    seed: Annotated[int, Field(description="random seed: the same sources and seed give the same test set")] = 42
    k_neighbours: Annotated[
        int, Field(ge=0, description="neighbour chunks joined to each root chunk as its context")
    ] = DEFAULT_K_NEIGHBOURS
    questions_per_context: Annotated[
        int | None, Field(ge=1, description="questions asked of each context (more when roots run out)")
    ] = None
    max_question_words: Annotated[
        int, Field(ge=1, description="words a question may have at most (Chinese and Japanese: two characters a word)")
    ] = DEFAULT_MAX_WORDS
    question_types: Annotated[
        str | None,
        Field(
            description="type mix, e.g. simple=0.5,multi_context=0.25,unanswerable=0.25 (types: simple, reasoning, "
            "multi_context, conditional, unanswerable, distracting)"
        ),
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
    personas: Annotated[
        str | None,
        Field(
            description="a YAML or JSON file listing who asks ({name, description} each): each question carries its "
            "persona, drawn from the parts of the corpus most like the description (with an LLM, in their words); "
            "auto: with an LLM, three personas from clusters of the corpus"
        ),
    ] = None
    query_styles: Annotated[
        str | None,
        Field(
            description="how the questions are typed, in turn: perfect, web (keywords), misspelled, poor_grammar; "
            "each styled row keeps canonical_question"
        ),
    ] = None
    query_lengths: Annotated[
        str | None, Field(description="how long the questions are, in turn: short, medium, long")
    ] = None

    # --- the stop rules ---------------------------------------------------------------------------------------
    zero_yield_patience: Annotated[
        int,
        Field(
            ge=1,
            description="contexts a question type may try without any question before it stops early (roots the "
            "writer can turn nothing from are passed over, not counted)",
        ),
    ] = 20
    low_yield_contexts: Annotated[
        int, Field(ge=1, description="contexts after which a type with a yield under --low-yield-rate stops early")
    ] = 100
    low_yield_rate: Annotated[
        float, Field(ge=0.0, le=1.0, description="questions a context a type must reach (0: never stop for it)")
    ] = 0.02
    max_questions_per_context: Annotated[
        int, Field(ge=1, description="questions one context may be asked at most when the roots run out")
    ] = 4
    tier_lookahead: Annotated[
        int,
        Field(
            ge=1,
            description="contexts written per requested question before drafts of kinds that read well less often "
            "(offline documentation: defaults, turned sentences, how-to answers naming no means) are screened",
        ),
    ] = 10
    max_tier: Annotated[
        int | None,
        Field(
            ge=0,
            description="the last tier of offline documentation drafts that may fill the set (0: definitions, "
            "options, FAQ entries and how-tos naming their means only; fewer questions, read good more often)",
        ),
    ] = None
    page_share: Annotated[
        float,
        Field(
            gt=0.0,
            le=1.0,
            description="the share of the set one documentation page may fill before its further questions wait "
            "for the next tier (1: no limit)",
        ),
    ] = 0.25

    @field_validator("query_styles", "query_lengths")
    @classmethod
    def _known_choices(cls, value: str | None, info: ValidationInfo) -> str | None:
        styles = info.field_name == "query_styles"
        parse_choices(value, STYLES if styles else LENGTHS, "query style" if styles else "query length")
        return value

    def why_stop(self, produced: int, tried: int) -> str | None:
        """Why a question type that gave `produced` questions from `tried` contexts stops early (None: it goes on)."""
        if produced == 0 and tried >= self.zero_yield_patience:
            return f"no question from the first {tried} contexts"
        if tried >= self.low_yield_contexts and produced < self.low_yield_rate * tried:
            return f"only {produced} question(s) from the first {tried} contexts"
        return None

    def page_quota(self) -> int | None:
        """Questions one documentation page may give to the set before its drafts wait a tier (None: any)."""
        return None if self.page_share >= 1.0 else max(1, math.ceil(self.page_share * self.size))
