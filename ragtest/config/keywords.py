"""make_config's keywords for type checkers: one per setting declared in `ragtest.config`, typed as declared (a
container as any sequence or mapping; None: not given). Generated from the declarations, never edited by hand:
`python -m tests.app.test_make_config_typing` rewrites it, tests/app/test_make_config_typing.py keeps it in step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict


class ConfigKeywords(TypedDict, total=False):
    revision: str | None
    topics_file: str | None
    wiki_cache: str | None
    wiki_timeout_s: float | None
    offline: bool | None
    size: int | None
    seed: int | None
    k_neighbours: int | None
    questions_per_context: int | None
    max_question_words: int | None
    question_types: str | None
    dedup_threshold: float | None
    max_copied_words: int | None
    critic: Literal["auto", "llm", "offline"] | None
    strict_types: bool | None
    personas: str | None
    query_styles: str | None
    query_lengths: str | None
    zero_yield_patience: int | None
    low_yield_contexts: int | None
    low_yield_rate: float | None
    max_questions_per_context: int | None
    tier_lookahead: int | None
    max_tier: int | None
    page_share: float | None
    chunk_size: int | None
    chunk_overlap: int | None
    separators: Sequence[str] | None
    allow_fewer: bool | None
    llm: str | None
    llm_base_url: str | None
    llm_concurrency: int | None
    llm_fixed_concurrency: bool | None
    llm_timeout: float | None
    llm_rps: float | None
    llm_tpm: float | None
    llm_retries: int | None
    llm_backoff: float | None
    llm_temperature: float | None
    llm_structured_output: Literal["auto", "native", "prompt"] | None
    llm_batch: bool | None
    llm_batch_poll: float | None
    llm_batch_poll_max: float | None
    llm_batch_retry: Literal["online", "batch"] | None
    cache: bool | None
    cache_dir: str | None
    prices: str | None
    embedding_model: str | None
    store_url: str | None
    rag: str | None
    rag_args: Mapping[str, Any] | None
    rag_k: int | None
    rag_chunk_size: int | None
    rag_chunk_overlap: int | None
    rag_embedding_model: str | None
    rag_concurrency: int | None
    rag_timeout_s: float | None
    metrics: Sequence[str] | None
    retrieval_k: int | None
    max_field_chars: int | None
    judge: Literal["auto", "local", "llm"] | None
    ray_address: str | None
    ray_workers: int | None
    ray_gpus: str | None
    ray_logs: bool | None
    repeats: int | None
    labels: str | None
    testset: str | None
