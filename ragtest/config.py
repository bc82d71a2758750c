"""Run configuration: one typed object that the CLI fills and the pipeline reads; stored in the manifest.

Every default lives with the code that owns it and is read from there: chunking and generation defaults from
`testgen`, the LLM runtime's from `ragtest_core.llm.LLMConfig`, the embedding model from `ragtest_core.embeddings`.
The CLI takes its defaults from these dataclasses.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from ragtest_core.embeddings import DEFAULT_MODEL
from ragtest_core.llm import LLMConfig
from testgen import (
    DEFAULT_DEDUP_THRESHOLD,
    DEFAULT_K_NEIGHBOURS,
    DEFAULT_MAX_COPIED_WORDS,
    DEFAULT_MAX_WORDS,
    ChunkingConfig,
)

_CHUNKING = ChunkingConfig()
DEFAULT_SEPARATORS: tuple[str, ...] = _CHUNKING.separators
CACHE_DIR_ENV = "RAGTEST_CACHE_DIR"
WIKI_CACHE_ENV = "RAGTEST_WIKI_CACHE"
OFFLINE_ENV = "RAGTEST_OFFLINE"


@dataclass
class SourceConfig:
    topic: str | None = None
    source: str | None = None
    #: The revision of `topic` to load (a MediaWiki revision id); also written as `Title@revid`.
    revision: str | None = None
    #: A file of topics, one a line (`Title` or `Title@revid`).
    topics_file: str | None = None
    wiki_cache: str | None = None
    wiki_timeout_s: float = 10.0
    offline: bool = False

    def resolved_cache(self) -> str | None:
        return self.wiki_cache or os.environ.get(WIKI_CACHE_ENV)


@dataclass
class GenerationConfig:
    size: int = 20
    seed: int = 42
    k_neighbours: int = DEFAULT_K_NEIGHBOURS
    #: None: the writer's own default (1 offline, 2 with an LLM writer, whose critic then judges both in one call).
    questions_per_context: int | None = None
    chunk_size: int = _CHUNKING.chunk_size
    chunk_overlap: int = _CHUNKING.chunk_overlap
    separators: tuple[str, ...] = DEFAULT_SEPARATORS
    max_question_words: int = DEFAULT_MAX_WORDS
    #: e.g. "simple=0.5,multi_context=0.25,unanswerable=0.25"; None = the writer's default mix.
    question_types: str | None = None
    dedup_threshold: float = DEFAULT_DEDUP_THRESHOLD
    max_copied_words: int = DEFAULT_MAX_COPIED_WORDS
    critic: str = "auto"
    strict_types: bool = False

    def chunking(self) -> ChunkingConfig:
        return ChunkingConfig(
            chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap, separators=tuple(self.separators)
        )

    def problems(self) -> list[str]:
        """What is wrong with these settings, each as the option a user would fix (empty when all is well)."""
        found = []
        for name, value, least in (
            ("--size", self.size, 1),
            ("--chunk-size", self.chunk_size, 1),
            ("--chunk-overlap", self.chunk_overlap, 0),
            ("--k-neighbours", self.k_neighbours, 0),
            ("--max-question-words", self.max_question_words, 1),
            ("--max-copied-words", self.max_copied_words, 1),
        ):
            if value < least:
                found.append(f"{name} must be at least {least}, got {value}")
        if self.questions_per_context is not None and self.questions_per_context < 1:
            found.append(f"--questions-per-context must be at least 1, got {self.questions_per_context}")
        if self.chunk_overlap >= self.chunk_size >= 1:
            found.append(
                f"--chunk-overlap ({self.chunk_overlap}) must be smaller than --chunk-size ({self.chunk_size})"
            )
        if not 0.0 < self.dedup_threshold <= 1.0:
            found.append(f"--dedup-threshold must be in (0, 1], got {self.dedup_threshold}")
        if self.critic not in ("auto", "llm", "offline"):
            found.append(f"--critic must be auto, llm or offline, got {self.critic!r}")
        if any(not isinstance(sep, str) for sep in self.separators):
            found.append("--separators must be strings")
        return found


@dataclass(frozen=True)
class LLMSettings(LLMConfig):
    """The LLM runtime's settings (`LLMConfig`: concurrency, limits, retries, timeouts) plus which model to use,
    where its reply cache lives and the price table."""

    spec: str | None = None
    base_url: str | None = None
    use_cache: bool = True
    cache_dir: str | None = None
    prices_file: str | None = None

    @property
    def configured(self) -> bool:
        return bool(self.spec or self.base_url)

    def resolved_cache_dir(self) -> str | None:
        """--cache-dir, else $RAGTEST_CACHE_DIR (a user-level cache shared by runs), else None (the run dir)."""
        return self.cache_dir or os.environ.get(CACHE_DIR_ENV) or None


@dataclass
class RunConfig:
    """Everything that decides a run's outputs (plus where they go)."""

    sources: SourceConfig = field(default_factory=SourceConfig)
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    llm: LLMSettings = field(default_factory=LLMSettings)
    embedding_model: str = DEFAULT_MODEL
    store_url: str | None = None
    rag: str | None = None
    #: Keyword arguments for the `rag` class or factory (`--rag-arg url=...`).
    rag_args: dict[str, Any] = field(default_factory=dict)
    rag_k: int = 4
    #: Questions asked at once; None = 1 for a synchronous adapter, 4 for an async one (the reference RAG).
    rag_concurrency: int | None = None
    rag_timeout_s: float = 120.0
    metrics: list[str] | None = None
    judge: str = "auto"
    #: Run CPU-bound stages on Ray (`--ray [ADDRESS]`): None = in this process; "auto" = a local Ray (or the
    #: cluster `ray start` left running); "ray://host:10001" or "host:6379" = that cluster.
    ray_address: str | None = None

    def resolved_judge(self) -> str:
        """'llm' when an LLM is configured and the judge is 'auto', else the judge asked for ('local' offline)."""
        if self.judge == "auto":
            return "llm" if self.llm.configured else "local"
        return self.judge

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
