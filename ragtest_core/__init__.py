"""ragtest_core: the ground floor every stage stands on. It imports nothing else of ragtest's.

- `schema`: the data contract (test sample, RAG answer, metric result, column names);
- `datasets`: reading and writing datasets (JSONL, JSON, Parquet, CSV; ragas' column names accepted);
- `errors`, `files` (atomic writes), `text` (sentences, tokens, language), `asyncio_utils`;
- `embeddings`: the shared sentence-embedding model;
- `support`: the one offline rule for "is this claim supported by these texts?";
- `llm`: the LLM runtime (concurrency, rate limits, retries, cache, token accounting, structured output).
"""

from ragtest_core.datasets import read_dataset, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.schema import MetricResult, RAGAnswer, TestSample

__all__ = ["MetricResult", "RAGAnswer", "RagtestError", "TestSample", "read_dataset", "write_dataset"]
