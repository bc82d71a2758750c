"""The RAG system under test: the adapter protocol, ready adapters (LangChain runnable, HTTP endpoint, LlamaIndex
query engine), the reference RAG, answer collection.

What users call is listed in `__all__`; the app's plumbing (planning the reference RAG's LLM calls, the default
concurrency, reading `--rag-arg`) lives in the submodules `planning`, `collect` and `loader`.
"""

from rag_under_test.adapter import AnyAdapter, AsyncRAGAdapter, HTTPAdapter, RAGAdapter, RunnableAdapter
from rag_under_test.collect import answer_samples
from rag_under_test.llamaindex import LlamaIndexAdapter
from rag_under_test.loader import load_adapter
from rag_under_test.reference import Passage, ReferenceRAG, Retriever

__all__ = [
    "AnyAdapter",
    "AsyncRAGAdapter",
    "HTTPAdapter",
    "LlamaIndexAdapter",
    "Passage",
    "RAGAdapter",
    "ReferenceRAG",
    "Retriever",
    "RunnableAdapter",
    "answer_samples",
    "load_adapter",
]
