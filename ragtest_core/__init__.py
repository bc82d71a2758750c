"""ragtest_core: the ground floor every stage stands on. It imports nothing else of ragtest's, and users import
its types from `ragtest` (which re-exports the data contract); the stages import them from the submodules:

- `schema`: the data contract (test sample, RAG answer, metric result, column names);
- `datasets`: reading and writing datasets (JSONL, JSON, Parquet, CSV; ragas' column names accepted);
- `errors`, `files` (atomic writes), `text` (sentences, tokens, language), `asyncio_utils`;
- `embeddings`: the shared sentence-embedding model;
- `support`: the one offline rule for "is this claim supported by these texts?";
- `llm`: the LLM runtime (concurrency, rate limits, retries, cache, token accounting, structured output).
"""

__all__: list[str] = []
