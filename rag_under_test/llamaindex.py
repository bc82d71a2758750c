"""A LlamaIndex query engine (or retriever) as the RAG under test (`--rag my_app:query_engine` wraps one by itself).

- The answer is the response's text (a streaming response is read to its end; a structured one is its JSON).
- The contexts are the response's source nodes' text, without metadata, in rank order, and `context_ids` their node
  ids (mapped to the gold chunks by text).
- A retriever with a response synthesizer is answered by LlamaIndex's RetrieverQueryEngine over the two; a retriever
  alone by the reference RAG's offline extractive reader (its answer metrics measure that reader).
- A response without text (None, blank, or the "Empty Response" placeholder that LlamaIndex's synthesizers give
  when nothing was retrieved or the LLM said nothing) keeps its row with the reason in `answer_error`, and its
  retrieved contexts, so retrieval is still scored. An exception in the engine is recorded by `answer_samples`.

llama-index-core is imported only when an adapter is made: ragtest imports and runs without it, and making an
adapter without it raises a RagtestError that names the extra to install.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from rag_under_test.reference import Passage, ReferenceRAG
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import RAGAnswer

INSTALL_HINT = 'pip install "ragtest[llamaindex]"'
#: What LlamaIndex's response synthesizers answer when they have nothing to say (their default `empty_response`).
EMPTY_RESPONSE = "Empty Response"
_ENGINE = "llama_index.core.base.base_query_engine"
_RETRIEVER = "llama_index.core.base.base_retriever"
_RESPONSES = "llama_index.core.base.response.schema"
_RETRIEVER_ENGINE = "llama_index.core.query_engine"


def llama_index(module: str) -> ModuleType:
    """A module of llama-index-core, or a RagtestError naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise RagtestError(
            f"the LlamaIndex adapter needs llama-index-core, which is not installed ({exc}); run: {INSTALL_HINT}"
        ) from exc


def is_llamaindex_rag(target: object) -> bool:
    """True for a LlamaIndex query engine or retriever. Imports nothing: an object of LlamaIndex exists only once
    the user's code has imported it."""
    engine, retriever = sys.modules.get(_ENGINE), sys.modules.get(_RETRIEVER)
    return (engine is not None and isinstance(target, engine.BaseQueryEngine)) or (
        retriever is not None and isinstance(target, retriever.BaseRetriever)
    )


class LlamaIndexAdapter:
    """A LlamaIndex query engine, or a retriever (with an optional response synthesizer), behind `answer(question)`
    (its `query`) and `aanswer(question)` (its `aquery`). `embedder` is for the extractive reader of a retriever
    alone (default: ragtest's shared embedder)."""

    def __init__(self, rag: Any, synthesizer: Any = None, embedder: Embedder | None = None) -> None:
        query_engine, base_retriever = llama_index(_ENGINE).BaseQueryEngine, llama_index(_RETRIEVER).BaseRetriever
        self.engine: Any = None
        self.retriever: Any = None
        self.reader: ReferenceRAG | None = None
        if isinstance(rag, query_engine):
            if synthesizer is not None:
                raise RagtestError("a query engine has its own synthesizer: give `synthesizer` with a retriever only")
            self.engine = rag
        elif isinstance(rag, base_retriever) and synthesizer is not None:
            engine = llama_index(_RETRIEVER_ENGINE).RetrieverQueryEngine
            self.engine = engine(retriever=rag, response_synthesizer=synthesizer)
        elif isinstance(rag, base_retriever):
            self.retriever = rag
            self.reader = ReferenceRAG(_NodeRetriever(rag), embedder=embedder)
        else:
            raise RagtestError(
                f"LlamaIndexAdapter takes a LlamaIndex query engine or retriever, got {type(rag).__name__}"
            )

    def answer(self, question: str) -> RAGAnswer:
        if self.retriever is not None:
            return self._read(question, self.retriever.retrieve(question))
        return _answer_of(_settled(self.engine.query(question)))

    async def aanswer(self, question: str) -> RAGAnswer:
        if self.retriever is not None:
            return self._read(question, await self.retriever.aretrieve(question))
        response = await self.engine.aquery(question)
        if isinstance(response, llama_index(_RESPONSES).AsyncStreamingResponse):
            response = await response.get_response()
        return _answer_of(_settled(response))

    def _read(self, question: str, nodes: Sequence[Any]) -> RAGAnswer:
        """A retriever alone: the extractive reader's answer from the retrieved nodes."""
        assert self.reader is not None
        contexts, ids = _contexts_of(nodes)
        return RAGAnswer(answer=self.reader.extract_answer(question, contexts), contexts=contexts, context_ids=ids)


class _NodeRetriever:
    """A LlamaIndex retriever as the reference RAG's `Retriever` (its own top-k, cut at `k`)."""

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    def retrieve(self, question: str, k: int) -> list[Passage]:
        contexts, ids = _contexts_of(self.retriever.retrieve(question)[:k])
        return [Passage(id=i, text=text) for i, text in zip(ids, contexts, strict=True)]


def _settled(response: Any) -> Any:
    """A plain Response from a streaming one (read to its end); a structured one and a plain one as they are."""
    schema = llama_index(_RESPONSES)
    if isinstance(response, schema.StreamingResponse):
        return response.get_response()
    if isinstance(response, schema.AsyncStreamingResponse):
        raise RagtestError("the query engine streamed asynchronously from query(); use aanswer()")
    return response


def _answer_of(response: Any) -> RAGAnswer:
    """The response's text and its source nodes; a response without text keeps its contexts and a reason."""
    contexts, ids = _contexts_of(getattr(response, "source_nodes", None) or [])
    text = getattr(response, "response", None)
    if text is not None and not isinstance(text, str):
        text = text.model_dump_json() if hasattr(text, "model_dump_json") else str(text)
    if text is None or not text.strip() or text.strip() == EMPTY_RESPONSE:
        shown = "no text" if text is None or not text.strip() else repr(text.strip())
        error = (
            f"the LlamaIndex query engine gave no answer ({shown}, {len(contexts)} source node(s)"
            f"{': it retrieved nothing' if not contexts else ''})"
        )
        return RAGAnswer(answer="", contexts=contexts, context_ids=ids, error=error)
    return RAGAnswer(answer=text, contexts=contexts, context_ids=ids)


def _contexts_of(nodes: Sequence[Any]) -> tuple[list[str], list[str]]:
    """Source nodes (NodeWithScore, in rank order) as their texts without metadata, and their node ids."""
    return [item.node.get_content() for item in nodes], [str(item.node.node_id) for item in nodes]
