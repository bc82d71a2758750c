"""ragtest: synthetic test sets for RAG systems, answered by your RAG, scored with confidence, and compared.

The layers, every arrow pointing down: `ragtest` (this app: CLI, API, config, pipeline, report) imports the three
stages `testgen`, `rag_under_test` and `evaluation`, which import only `ragtest_core` (the data contract, datasets,
errors, text utilities, embeddings, the LLM runtime). The stage functions (`generate`, `answer`, `evaluate`, `run`,
`compare`, `make_config`) load on first use, so `import ragtest` stays cheap; type checkers see them fully typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragtest.config import GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.schema import MetricResult, RAGAnswer, TestSample

if TYPE_CHECKING:
    from ragtest.api import answer, compare, evaluate, generate, make_config, run

__version__ = "0.1.0"

_API = ("generate", "answer", "evaluate", "run", "compare", "make_config")

__all__ = [
    "GenerationConfig",
    "LLMSettings",
    "MetricResult",
    "RAGAnswer",
    "RagtestError",
    "RunConfig",
    "SourceConfig",
    "TestSample",
    "answer",
    "compare",
    "evaluate",
    "generate",
    "make_config",
    "read_dataset",
    "run",
    "write_dataset",
]


def __getattr__(name: str) -> Any:
    if name in _API:
        from ragtest import api

        return getattr(api, name)
    raise AttributeError(f"module 'ragtest' has no attribute {name!r}")
