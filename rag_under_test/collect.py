"""Running every test question through the RAG under test, keeping every row, errors included."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from rag_under_test.adapter import AnyAdapter, AsyncRAGAdapter, call_adapter
from ragtest_core.errors import LLMPermanentError
from ragtest_core.progress import Identity, ProgressWriter, read_progress
from ragtest_core.redact import redact_text
from ragtest_core.schema import ANSWER, ANSWER_ERROR, CONTEXT_IDS, CONTEXTS, QUESTION, SAMPLE_ID, RAGAnswer, stable_id


async def answer_one(
    adapter: AnyAdapter, question: str, timeout_s: float, redact: Callable[[str], str] = redact_text
) -> RAGAnswer:
    """One question; an exception or a timeout becomes a recorded error, not a lost row (its message through
    `redact`: an adapter's error may quote a URL with a password, or a token). A permanent LLM error (bad key,
    unknown model) is not the question's fault: it stops the run."""
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(call_adapter(adapter, question), timeout=timeout_s)
    except LLMPermanentError:
        raise
    except asyncio.TimeoutError:
        return RAGAnswer(answer="", error=f"timed out after {timeout_s:g} s", latency_s=timeout_s)
    except Exception as exc:
        error = redact(f"{type(exc).__name__}: {exc}")
        return RAGAnswer(answer="", error=error, latency_s=time.perf_counter() - started)
    latency = result.latency_s if result.latency_s is not None else time.perf_counter() - started
    return result.model_copy(update={"latency_s": round(latency, 4)})


def default_concurrency(adapter: AnyAdapter) -> int:
    """How many questions to ask at once when the user did not say: 4 for an async adapter; 1 for a synchronous one,
    which runs in worker threads, since many RAG objects (a shared client, a model, a cursor) are not safe to call
    from several threads at once."""
    return 4 if isinstance(adapter, AsyncRAGAdapter) else 1


def question_of(sample: Mapping[str, Any]) -> str:
    """The sample's question (ragtest's `question`, or ragas' `user_input`)."""
    return str(sample[QUESTION] if QUESTION in sample else sample["user_input"])


def row_key(sample: Mapping[str, Any]) -> str:
    """A sample's identity for resuming: its id and its question, so that a saved answer is reused only for the
    same question (another test set may reuse an id for another question)."""
    return stable_id(str(sample.get(SAMPLE_ID) or ""), question_of(sample))


async def answer_samples(
    samples: Iterable[Mapping[str, Any]],
    adapter: AnyAdapter,
    *,
    concurrency: int | None = None,
    timeout_s: float = 120.0,
    progress_path: str | Path | None = None,
    identity: Identity | None = None,
    show_progress: bool = True,
    redact: Callable[[str], str] = redact_text,
) -> list[dict[str, Any]]:
    """Answer every sample, in input order, `concurrency` at a time (default: `default_concurrency`).

    With `progress_path`, rows are appended as they complete, under a header recording `identity` (the adapter and
    its arguments; default: the adapter's class); a re-run of the same identity reuses them for the same questions
    (failed ones are asked again), and a file from another identity raises `ProgressMismatchError`."""
    samples = list(samples)
    identity = identity or Identity({"adapter": f"{type(adapter).__module__}.{type(adapter).__qualname__}"}, {})
    saved = read_progress(progress_path, identity) if progress_path is not None else []
    done = {row_key(row): row for row in saved if not row.get(ANSWER_ERROR)}
    todo = [s for s in samples if row_key(s) not in done]
    semaphore = asyncio.Semaphore(concurrency if concurrency is not None else default_concurrency(adapter))
    bar = tqdm(total=len(samples), initial=len(samples) - len(todo), desc="answer", unit="q", disable=not show_progress)
    appender = ProgressWriter(progress_path, identity) if progress_path is not None else None
    errors: list[str] = []

    async def run(sample: Mapping[str, Any]) -> None:
        async with semaphore:
            result = await answer_one(adapter, question_of(sample), timeout_s, redact)
        row = {**sample, ANSWER: result.answer, CONTEXTS: result.contexts, CONTEXT_IDS: result.context_ids}
        row |= {ANSWER_ERROR: result.error, "answer_latency_s": result.latency_s}
        done[row_key(sample)] = row
        if appender is not None:
            appender.append(row)
        if result.error:
            errors.append(result.error)
            bar.set_postfix(errors=len(errors), refresh=False)
        bar.update(1)

    try:
        await asyncio.gather(*(run(s) for s in todo))
    finally:
        bar.close()
        if appender is not None:
            appender.close()
    return [done[row_key(s)] for s in samples]
