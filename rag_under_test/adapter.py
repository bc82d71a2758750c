"""The adapter protocol between ragtest and the RAG system under test, and two ready adapters."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ragtest_core.schema import ANSWER, CONTEXT_IDS, CONTEXTS, RAGAS_ALIASES, RAGAnswer


@runtime_checkable
class RAGAdapter(Protocol):
    """A RAG system answering one question at a time (synchronous form)."""

    def answer(self, question: str) -> RAGAnswer: ...


@runtime_checkable
class AsyncRAGAdapter(Protocol):
    """A RAG system answering one question at a time (asynchronous form)."""

    async def aanswer(self, question: str) -> RAGAnswer: ...


AnyAdapter = RAGAdapter | AsyncRAGAdapter


async def call_adapter(adapter: AnyAdapter, question: str) -> RAGAnswer:
    """Ask either form; a synchronous adapter runs in a worker thread so it cannot block the event loop."""
    if isinstance(adapter, AsyncRAGAdapter):
        return coerce_answer(await adapter.aanswer(question))
    if isinstance(adapter, RAGAdapter):
        return coerce_answer(await asyncio.to_thread(adapter.answer, question))
    raise TypeError(f"{type(adapter).__name__} has neither answer(question) nor aanswer(question)")


def coerce_answer(value: Any) -> RAGAnswer:
    """Accept a RAGAnswer, a mapping with answer/contexts[/context_ids] (or ragas' names), or a plain string. An
    answer that is not text, or a context that is neither text nor a LangChain Document, is a TypeError (the row
    records it): its repr would otherwise be scored as if the RAG had said it."""
    if isinstance(value, RAGAnswer):
        return value
    if isinstance(value, str):
        return RAGAnswer(answer=value)
    if isinstance(value, Mapping):
        fields = {RAGAS_ALIASES[key]: item for key, item in value.items() if key in RAGAS_ALIASES}
        fields.update({str(key): item for key, item in value.items() if key not in RAGAS_ALIASES})  # ours win
        answer = fields.get(ANSWER, fields.get("output"))
        if not isinstance(answer, str):
            raise TypeError(f"the adapter's answer must be text, got {type(answer).__name__}")
        contexts = fields.get(CONTEXTS) or []
        if isinstance(contexts, str) or not isinstance(contexts, (list, tuple)):
            raise TypeError(f"the adapter's contexts must be a list of texts, got {type(contexts).__name__}")
        texts = [context_text(c, index) for index, c in enumerate(contexts)]
        ids = fields.get(CONTEXT_IDS)
        return RAGAnswer(answer=answer, contexts=texts, context_ids=[str(i) for i in ids] if ids else None)
    raise TypeError(f"a RAG adapter returned {type(value).__name__}; expected RAGAnswer, dict or str")


def context_text(context: Any, index: int) -> str:
    """A retrieved context as text: a string, or a LangChain Document's page_content."""
    content = context if isinstance(context, str) else getattr(context, "page_content", None)
    if isinstance(content, str):
        return content
    raise TypeError(f"the adapter's context {index} is {type(context).__name__}, not text (nor a Document)")


class RunnableAdapter:
    """Wraps a LangChain runnable whose output is a dict with `answer` and `context` (Documents) or `contexts`."""

    def __init__(self, runnable: Any, input_key: str | None = None) -> None:
        self.runnable = runnable
        self.input_key = input_key

    async def aanswer(self, question: str) -> RAGAnswer:
        payload: Any = {self.input_key: question} if self.input_key else question
        output = await self.runnable.ainvoke(payload)
        if isinstance(output, Mapping) and "context" in output and "contexts" not in output:
            documents = list(output["context"])
            ids = [str(d.id or d.metadata.get("id", "")) for d in documents]
            return RAGAnswer(
                answer=str(output.get("answer", "")),
                contexts=[d.page_content for d in documents],
                context_ids=ids if all(ids) else None,
            )
        if hasattr(output, "content"):
            return RAGAnswer(answer=str(output.content))
        return coerce_answer(output)


class HTTPAdapter:
    """POSTs {"question": ...} as JSON to a URL; expects {"answer", "contexts", optional "context_ids"} back."""

    def __init__(self, url: str, timeout_s: float = 60.0, headers: Mapping[str, str] | None = None) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.headers = {"Content-Type": "application/json", **(headers or {})}

    def answer(self, question: str) -> RAGAnswer:
        body = json.dumps({"question": question}).encode("utf-8")
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            payload = json.loads(response.read().decode("utf-8"))
        return coerce_answer(payload).model_copy(update={"latency_s": time.perf_counter() - started})
