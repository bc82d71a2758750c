"""The RAG system under test: the adapter protocol, ready adapters, the reference RAG, answer collection."""

from rag_under_test.adapter import (
    AnyAdapter,
    AsyncRAGAdapter,
    HTTPAdapter,
    RAGAdapter,
    RunnableAdapter,
    call_adapter,
    coerce_answer,
)
from rag_under_test.collect import answer_one, answer_samples, default_concurrency
from rag_under_test.loader import load_adapter, parse_adapter_args
from rag_under_test.planning import answer_call, plan_llm_calls
from rag_under_test.reference import Passage, ReferenceRAG, Retriever

__all__ = [
    "AnyAdapter",
    "AsyncRAGAdapter",
    "HTTPAdapter",
    "Passage",
    "RAGAdapter",
    "ReferenceRAG",
    "Retriever",
    "RunnableAdapter",
    "answer_call",
    "answer_one",
    "answer_samples",
    "call_adapter",
    "coerce_answer",
    "default_concurrency",
    "load_adapter",
    "parse_adapter_args",
    "plan_llm_calls",
]
