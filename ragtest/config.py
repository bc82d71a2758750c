"""Run configuration: one typed object that the CLI fills and the pipeline reads; stored in the manifest."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from ragtest.embeddings import DEFAULT_MODEL

DEFAULT_SEPARATORS: tuple[str, ...] = (". ", "\n")
CACHE_DIR_ENV = "RAGTEST_CACHE_DIR"


@dataclass
class SourceConfig:
    topic: str | None = None
    source: str | None = None
    wiki_cache: str | None = None
    wiki_timeout_s: float = 10.0
    offline: bool = False

    def resolved_cache(self) -> str | None:
        return self.wiki_cache or os.environ.get("RAGTEST_WIKI_CACHE")


@dataclass
class GenerationConfig:
    size: int = 20
    seed: int = 42
    k_neighbours: int = 2
    questions_per_context: int = 1
    chunk_size: int = 512
    chunk_overlap: int = 128
    separators: tuple[str, ...] = DEFAULT_SEPARATORS
    max_question_words: int = 10
    #: e.g. "simple=0.5,multi_context=0.25,unanswerable=0.25"; None = the writer's default mix.
    question_types: str | None = None
    dedup_threshold: float = 0.9
    max_copied_words: int = 6
    critic: str = "auto"
    strict_types: bool = False


@dataclass
class LLMSettings:
    spec: str | None = None
    base_url: str | None = None
    max_concurrency: int = 8
    timeout_s: float = 60.0
    requests_per_second: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 6
    backoff_s: float = 1.0
    adaptive: bool = True
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
    rag_k: int = 4
    rag_concurrency: int = 4
    rag_timeout_s: float = 120.0
    metrics: list[str] | None = None
    judge: str = "auto"

    def resolved_judge(self) -> str:
        """'llm' when an LLM is configured and the judge is 'auto', else the judge asked for ('local' offline)."""
        if self.judge == "auto":
            return "llm" if self.llm.configured else "local"
        return self.judge

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
