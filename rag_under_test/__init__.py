"""The RAG system under test: the adapter protocol, ready adapters, the reference RAG, answer collection."""

from rag_under_test.adapter import AsyncRAGAdapter, HTTPAdapter, RAGAdapter, RunnableAdapter, call_adapter
from rag_under_test.collect import answer_one, answer_samples
from rag_under_test.loader import load_adapter
from rag_under_test.reference import Passage, ReferenceRAG, Retriever

__all__ = [
    "AsyncRAGAdapter",
    "HTTPAdapter",
    "Passage",
    "RAGAdapter",
    "ReferenceRAG",
    "Retriever",
    "RunnableAdapter",
    "answer_one",
    "answer_samples",
    "call_adapter",
    "load_adapter",
]
