"""The RAG system under test: the adapter protocol, ready adapters (LangChain runnable, HTTP endpoint, LlamaIndex
query engine) and the reference RAG.

What users call is listed in `__all__`; the app's plumbing (collecting answers, loading `--rag`, reading
`--rag-arg`) lives in the submodules `collect` and `loader`.
"""

from rag_under_test.adapter import AsyncRAGAdapter, HTTPAdapter, RAGAdapter, RunnableAdapter
from rag_under_test.llamaindex import LlamaIndexAdapter
from rag_under_test.reference import ReferenceRAG

__all__ = ["AsyncRAGAdapter", "HTTPAdapter", "LlamaIndexAdapter", "RAGAdapter", "ReferenceRAG", "RunnableAdapter"]
