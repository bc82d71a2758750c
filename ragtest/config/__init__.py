"""Run configuration: every setting of a run, each declared once as a typed field with its default, help text and
validation (see `ragtest.settings` for what is derived from these models: the CLI flags, `make_config`, the
manifest's record).

Defaults owned by a stage or the core are read from there: chunking and generation defaults from `testgen`, the
LLM runtime's from `ragtest_core.llm.LLMConfig`, the embedding model from `ragtest_core.embeddings`.

The models live one section a module: `sources`, `generation`, `llm`, and `run` (RunConfig, which holds them).
"""

from ragtest.config.generation import DEFAULT_SEPARATORS, GenerationConfig
from ragtest.config.llm import LLMSettings
from ragtest.config.parsing import (
    CACHE_DIR_ENV,
    OFFLINE_ENV,
    PRICES_ENV,
    RAY_ADDRESS_ENV,
    WIKI_CACHE_ENV,
    decode_separator,
    parse_metric_list,
)
from ragtest.config.run import RunConfig
from ragtest.config.sources import SourceConfig

__all__ = [
    "CACHE_DIR_ENV",
    "DEFAULT_SEPARATORS",
    "OFFLINE_ENV",
    "PRICES_ENV",
    "RAY_ADDRESS_ENV",
    "WIKI_CACHE_ENV",
    "GenerationConfig",
    "LLMSettings",
    "RunConfig",
    "SourceConfig",
    "decode_separator",
    "parse_metric_list",
]
