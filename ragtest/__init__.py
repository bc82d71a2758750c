"""ragtest: synthetic test sets for RAG systems, answered by your RAG, scored with confidence, and compared.

The layers, every arrow pointing down: `ragtest` (this app: CLI, API, config, pipeline, report) imports the three
stages `testgen`, `rag_under_test` and `evaluation`, which import only `ragtest_core` (the data contract, datasets,
errors, text utilities, embeddings, the LLM runtime). The stage functions (`generate`, `answer`, `evaluate`, `run`,
`compare`, `make_config`) and the results they return load on first use, so `import ragtest` stays cheap; type
checkers see them fully typed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragtest.config import RunConfig
from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.schema import MetricResult, RAGAnswer, TestSample

if TYPE_CHECKING:
    from ragtest.api import answer, compare, evaluate, generate, make_config, run
    from ragtest.comparison import Comparison
    from ragtest.results import EvaluationReport, MetricSummary, TestSet

__version__ = "0.1.0"

#: Names loaded on first use, by the module that defines them.
_LAZY = {
    **dict.fromkeys(("generate", "answer", "evaluate", "run", "compare", "make_config"), "ragtest.api"),
    **dict.fromkeys(("TestSet", "EvaluationReport", "MetricSummary"), "ragtest.results"),
    "Comparison": "ragtest.comparison",
}

__all__ = [
    "Comparison",
    "EvaluationReport",
    "MetricResult",
    "MetricSummary",
    "RAGAnswer",
    "RagtestError",
    "RunConfig",
    "TestSample",
    "TestSet",
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
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ragtest' has no attribute {name!r}")
