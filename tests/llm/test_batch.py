"""Batch mode against the stub server's files and batches endpoints: calls made together go as one batch, replies
equal the online ones, failed lines go online (or into the next batch), dependent calls make successive batches,
a new process resumes the journal's pending batch without submitting it again, and usage prices batch calls at
the batch rate."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.llm import LLMClient, LLMConfig, build_client
from ragtest_core.llm.batch_journal import BatchJournal
from ragtest_core.llm.loop import on_io_loop
from ragtest_core.llm.usage import BATCH_PRICE_FACTOR, StageUsage
from tests.stubs.openai_batches import every_nth_line
from tests.stubs.openai_server import OpenAIStubServer

PRICES = {"stub-model": (1.0, 2.0)}
QUESTIONS = [f"What is fact number {i} about polar bears?" for i in range(8)]


class Answer(BaseModel):
    answer: str


def reply(request: Any) -> str:
    return json.dumps({"answer": f"echo: {request.last_user[-40:]}"})


def make(server: OpenAIStubServer, folder: Path, batch: bool = True, **settings: Any) -> LLMClient:
    config = LLMConfig(batch=batch, batch_poll=0.05, batch_poll_max=0.2, retries=1, **settings)
    client = build_client(
        "openai:stub-model",
        server.url,
        cache_path=folder / "cache.sqlite",
        config=config,
        prices=PRICES,
        batch_journal=folder / "llm_batches.jsonl",
    )
    assert client is not None
    return client


def ask_all(client: LLMClient, questions: list[str]) -> list[Answer]:
    async def go() -> list[Answer]:
        return list(await asyncio.gather(*(client.structured(q, Answer, stage="t") for q in questions)))

    return run_sync(go())


async def interrupted(client: LLMClient, server: OpenAIStubServer) -> None:
    """Send the calls, wait until their batch is created and polled, then stop as a killed process would."""
    calls = asyncio.gather(*(client.structured(q, Answer, stage="t") for q in QUESTIONS))
    deadline = time.monotonic() + 20
    while not server.batch.created and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # polling now
    calls.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await calls
    assert client.batch is not None
    await on_io_loop(client.batch.stop())


@pytest.fixture
def server() -> Any:
    with OpenAIStubServer(responder=reply, batch_delay_s=0.2, lifetime_s=120) as stub:
        yield stub


def test_calls_made_together_go_as_one_batch_and_reply_as_online(server: OpenAIStubServer, tmp_path: Path) -> None:
    batched = ask_all(make(server, tmp_path / "batch"), QUESTIONS)
    assert server.request_count == 0 and len(server.batch.created) == 1
    (created,) = server.batch.created
    assert created.lines == len(QUESTIONS) and created.endpoint == "/v1/chat/completions"
    lines = [json.loads(line) for line in server.batch.files[created.input_file_id].data.decode().splitlines()]
    assert all(line["body"]["response_format"]["type"] == "json_schema" for line in lines)  # as online asks
    assert all(line["body"]["model"] == "stub-model" for line in lines)
    online = ask_all(make(server, tmp_path / "online", batch=False), QUESTIONS)
    assert batched == online and server.request_count == len(QUESTIONS)


def test_batch_replies_fill_the_cache_and_are_priced_at_the_batch_rate(
    server: OpenAIStubServer, tmp_path: Path
) -> None:
    client = make(server, tmp_path)
    ask_all(client, QUESTIONS)
    total = client.usage.total()
    assert total.calls == total.batch_calls == len(QUESTIONS) and total.batch_input_tokens == total.input_tokens > 0
    full = client.usage.cost_usd(StageUsage(input_tokens=total.input_tokens, output_tokens=total.output_tokens))
    assert full is not None and client.usage.cost_usd(total) == pytest.approx(full * BATCH_PRICE_FACTOR)
    assert "Batch API at the batch price" in client.usage.report()
    again = make(server, tmp_path)
    ask_all(again, QUESTIONS)
    assert again.usage.total().cache_hits == len(QUESTIONS) and len(server.batch.created) == 1


def test_failed_lines_go_online(tmp_path: Path) -> None:
    with OpenAIStubServer(responder=reply, batch_delay_s=0.1, batch_fail_lines=every_nth_line(3)) as server:
        client = make(server, tmp_path)
        answers = ask_all(client, QUESTIONS)
        failed = server.batch.created[0].failed
        assert failed > 0 and server.request_count == failed
        total = client.usage.total()
        assert total.batch_failed_lines == failed and total.batch_calls == len(QUESTIONS) - failed
        assert [a.answer for a in answers] == [f"echo: {q[-40:]}" for q in QUESTIONS]


def test_failed_lines_go_into_a_second_batch(tmp_path: Path) -> None:
    with OpenAIStubServer(responder=reply, batch_delay_s=0.1, batch_fail_lines=every_nth_line(3)) as server:
        answers = ask_all(make(server, tmp_path, batch_retry="batch"), QUESTIONS)
        first, second = server.batch.created
        assert second.lines == first.failed > 0 and server.request_count == 0
        assert [a.answer for a in answers] == [f"echo: {q[-40:]}" for q in QUESTIONS]


def test_dependent_calls_make_successive_batches(server: OpenAIStubServer, tmp_path: Path) -> None:
    client = make(server, tmp_path)

    async def two_steps(question: str) -> Answer:
        first = await client.structured(question, Answer, stage="extract")
        return await client.structured(f"Check this: {first.answer}", Answer, stage="verdict")

    async def go() -> list[Answer]:
        return list(await asyncio.gather(*(two_steps(q) for q in QUESTIONS[:4])))

    run_sync(go())
    assert [b.lines for b in server.batch.created] == [4, 4]


def test_a_new_process_resumes_the_pending_batch_without_submitting_again(
    server: OpenAIStubServer, tmp_path: Path
) -> None:
    server.batch.delay_s = 60.0
    first = make(server, tmp_path)

    run_sync(interrupted(first, server))
    (pending,) = BatchJournal(tmp_path / "llm_batches.jsonl").pending()
    assert pending.batch_id == server.batch.created[0].id and len(pending.keys) == len(QUESTIONS)
    server.batch.delay_s = 0.0
    second = make(server, tmp_path)
    answers = ask_all(second, QUESTIONS)
    assert len(server.batch.created) == 1 and second.batch is not None and second.batch.resumed == 1
    assert second.batch.submitted == 0 and server.request_count == 0
    assert [a.answer for a in answers] == [f"echo: {q[-40:]}" for q in QUESTIONS]
    assert BatchJournal(tmp_path / "llm_batches.jsonl").pending() == []


def test_an_upload_whose_batch_creation_was_not_recorded_is_found(server: OpenAIStubServer, tmp_path: Path) -> None:
    """Killed between creating the batch and recording it: the next process finds the batch by its input file."""
    server.batch.delay_s = 60.0
    first = make(server, tmp_path)

    run_sync(interrupted(first, server))
    journal = tmp_path / "llm_batches.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(line for line in lines if '"created"' not in line) + "\n")
    server.batch.delay_s = 0.0
    second = make(server, tmp_path)
    ask_all(second, QUESTIONS)
    assert len(server.batch.created) == 1 and second.batch is not None and second.batch.resumed == 1
