"""How the test set is written: the generator's settings (`testgen.GenerationSettings`) and how documents are cut
(`testgen.ChunkingConfig`), each declared there once (type, default, validation, help), plus whether a smaller set
is accepted.

`GenerationConfig` derives from both models, so the stages take this section as it is; here each inherited setting
only gets its `Opt` where `--help` or the command line should show it otherwise.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, model_validator

from ragtest.settings import Opt, Section, flag_of
from testgen import ChunkingConfig, GenerationSettings


class GenerationConfig(ChunkingConfig, GenerationSettings, Section):
    """How the test set is written (the generator's settings first, then the chunking's: the bases' reverse order)."""

    group = "generation"

    allow_fewer: Annotated[
        bool,
        Field(
            description="accept a test set smaller than --size when the sources give no more (exit 0; its manifest "
            "still marks it partial and says why); without it, the questions made are written and the command "
            "stops with exit 2"
        ),
    ] = False

    #: The settings a partial test set may be topped up under when they differ from its manifest (`--size`, and
    #: those that only decide how far the search goes): any other generation setting changes the questions, so a
    #: later generate that changes one starts afresh (`ragtest.partial_testsets`).
    TOP_UP_FREE: ClassVar[frozenset[str]] = frozenset({"size", "allow_fewer", "zero_yield_patience",
        "low_yield_contexts", "low_yield_rate", "max_questions_per_context", "tier_lookahead"})  # fmt: skip

    @model_validator(mode="after")
    def _overlap_below_size(self) -> GenerationConfig:
        if self.chunk_overlap >= self.chunk_size:
            overlap, size = flag_of(GenerationConfig, "chunk_overlap"), flag_of(GenerationConfig, "chunk_size")
            raise ValueError(f"{overlap} ({self.chunk_overlap}) must be smaller than {size} ({self.chunk_size})")
        return self


#: How the command line shows and reads an inherited setting, where its type and default would not say it well.
for _name, _opt in {
    "questions_per_context": Opt(default_text="1 offline, 2 with an LLM writer"),
    "question_types": Opt(
        default_text="what the writer can do: simple and multi_context offline, every type with an LLM"
    ),
    "max_tier": Opt(default_text="every tier"),
    "personas": Opt(metavar="FILE"),
    "query_styles": Opt(metavar="STYLE,..."),
    "query_lengths": Opt(metavar="LENGTH,..."),
    "separators": Opt(
        nargs="+",
        metavar="SEP",  # backslash escapes (\n, \t, \\) decoded
        parse=lambda words: tuple(w.encode().decode("unicode_escape").encode("latin-1").decode() for w in words),
        render=lambda value: [sep.encode("unicode_escape").decode("ascii") for sep in value],
        default_text=" ".join(map(repr, ChunkingConfig().separators)) + ", then ' ' and ''",
    ),
}.items():
    _info = GenerationConfig.model_fields[_name]
    _info.metadata = [*_info.metadata, _opt]
