"""How the test set is written: the generator's settings (`testgen.GenerationSettings`, declared there once:
type, default, validation, help), plus chunking and whether a smaller set is accepted.

`GenerationConfig` derives from the generator's model, so the generation stage takes this section as it is; here
each inherited setting only gets its `Opt` where `--help` should show its default in words.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, model_validator

from ragtest.config.parsing import separators_in, separators_out
from ragtest.settings import Opt, Section, flag_of
from testgen import ChunkingConfig, GenerationSettings

_CHUNKING = ChunkingConfig()
DEFAULT_SEPARATORS: tuple[str, ...] = _CHUNKING.separators
#: How `--help` shows an inherited setting's default, where the value would not say it well.
_DEFAULTS_IN_WORDS = {
    "questions_per_context": "1 offline, 2 with an LLM writer",
    "question_types": "what the writer can do: simple and multi_context offline, every type with an LLM",
    "max_tier": "every tier",
}


class GenerationConfig(GenerationSettings, Section):
    """How the test set is written."""

    group = "generation"

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


for _name, _text in _DEFAULTS_IN_WORDS.items():
    _info = GenerationConfig.model_fields[_name]
    _info.metadata = [*_info.metadata, Opt(default_text=_text)]
for _name, _metavar in {"personas": "FILE", "query_styles": "STYLE,...", "query_lengths": "LENGTH,..."}.items():
    _info = GenerationConfig.model_fields[_name]
    _info.metadata = [*_info.metadata, Opt(metavar=_metavar)]
