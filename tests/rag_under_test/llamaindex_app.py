"""A team's LlamaIndex RAG, as the tests use it: a real VectorStoreIndex over the shipped Wikipedia article, with
ragtest's local MiniLM embeddings and a scripted LLM (nothing is downloaded, no key is needed).

    ragtest answer --rag tests.rag_under_test.llamaindex_app:query_engine ...   # a factory returning an engine
    ragtest answer --rag tests.rag_under_test.llamaindex_app:retriever ...      # a retriever alone

The scripted LLM answers from the context in its prompt: the context sentence that shares the most content words
with the query (the first of the best), or "I don't know." when none shares one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.node_parser import SentenceSplitter

from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.text import content_tokens, split_sentences

ARTICLE = Path(__file__).resolve().parents[2] / "examples" / "wikipedia" / "Python_(programming_language).txt"
TITLE = "Python (programming language)"
#: Tokens per LlamaIndex chunk: about 800 characters, inside MiniLM's 256-token window.
CHUNK_TOKENS = 200
TOP_K = 4
#: LlamaIndex's default question-answering prompt puts the retrieved context between two such rules.
_PROMPT = re.compile(r"-{5,}\n(?P<context>.*)\n-{5,}.*Query: (?P<query>.*?)\nAnswer:", re.DOTALL)
REFUSAL = "I don't know."


class MiniLMEmbedding(BaseEmbedding):
    """ragtest's embedder (all-MiniLM-L6-v2, local) as a LlamaIndex embedding model."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder | None = None, **kwargs: Any) -> None:
        super().__init__(model_name="all-MiniLM-L6-v2", embed_batch_size=64, **kwargs)
        self._embedder = embedder or get_embedder()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embeddings([query])[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        rows: list[list[float]] = self._embedder.embed(texts).tolist()
        return rows


def best_sentence(query: str, context: str) -> str:
    """The context sentence sharing the most content words with the query (the first of the best)."""
    asked = set(content_tokens(query))
    best, best_shared = REFUSAL, 0
    for sentence in split_sentences(context):
        shared = len(asked & set(content_tokens(sentence)))
        if shared > best_shared:
            best, best_shared = sentence, shared
    return best


class ExtractiveLLM(CustomLLM):
    """A scripted LLM: answers LlamaIndex's question-answering prompt with `best_sentence` of its context."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=32_000, num_output=256, model_name="scripted-extractive")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        match = _PROMPT.search(prompt)
        text = best_sentence(match["query"], match["context"]) if match else REFUSAL
        return CompletionResponse(text=text)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        answer = self.complete(prompt, formatted=formatted).text

        def tokens() -> CompletionResponseGen:
            for index, word in enumerate(answer.split(" ")):
                delta = word if index == 0 else " " + word
                yield CompletionResponse(text=answer, delta=delta)

        return tokens()


def node_id(index: int, document: Document) -> str:
    """Stable node ids ("python-12"): the same chunk has the same id in every run."""
    return f"{document.doc_id}-{index}"


@lru_cache(maxsize=1)
def index() -> VectorStoreIndex:
    """The article, split by LlamaIndex's SentenceSplitter and embedded once per process."""
    document = Document(
        text=ARTICLE.read_text(encoding="utf-8"),
        id_="python",
        metadata={"title": TITLE},
        excluded_llm_metadata_keys=["title"],
    )
    splitter = SentenceSplitter(chunk_size=CHUNK_TOKENS, chunk_overlap=20, id_func=node_id)
    return VectorStoreIndex.from_documents([document], embed_model=MiniLMEmbedding(), transformations=[splitter])


def query_engine(top_k: int = TOP_K, streaming: bool = False) -> BaseQueryEngine:
    """The RAG under test: top-k retrieval, then the scripted LLM over the retrieved chunks."""
    return index().as_query_engine(llm=ExtractiveLLM(), similarity_top_k=top_k, streaming=streaming)


def retriever(top_k: int = TOP_K) -> BaseRetriever:
    """Retrieval alone (ragtest's extractive reader answers from its nodes)."""
    return index().as_retriever(similarity_top_k=top_k)
