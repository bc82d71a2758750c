"""ragtest: synthetic test sets for RAG systems, answered by your RAG, scored with confidence.

The stage functions (`generate`, `answer`, `evaluate`, `run`) load lazily, so `import ragtest` stays cheap.
"""

from __future__ import annotations

from typing import Any

from ragtest.config import GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.datasets import read_dataset, write_dataset
from ragtest.errors import RagtestError
from ragtest.schema import MetricResult, RAGAnswer, TestSample

__version__ = "0.1.0"

_API = ("generate", "answer", "evaluate", "run", "make_config")

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
