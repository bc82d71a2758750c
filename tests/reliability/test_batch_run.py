"""`ragtest run --llm-batch`: the whole job (the LLM writer and critic, the reference RAG's answers, the LLM judge)
through the stub server's Batch API, with some lines failing and sent online, gives the very files the online run
gives, and every call but the failed lines went in a batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtest.cli import main
from tests.reliability.conftest import manifest, read_final_files, run_args
from tests.stubs.openai_batches import every_nth_line
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder


def test_a_batch_run_writes_the_files_an_online_run_writes(new_run_dir: Any, wiki_dir: Path) -> None:
    with OpenAIStubServer(
        responder=PlausibleResponder(chatty=True), batch_delay_s=0.2, batch_fail_lines=every_nth_line(7), lifetime_s=280
    ) as server:
        online, batched = new_run_dir("online"), new_run_dir("batch")
        assert main(run_args(online, wiki_dir, server.url)) == 0
        sent_online = server.request_count
        poll = ["--llm-batch", "--llm-batch-poll", "0.1", "--llm-batch-poll-max", "0.3"]
        assert main(run_args(batched, wiki_dir, server.url, *poll)) == 0
        assert read_final_files(batched) == read_final_files(online)
        failed = sum(batch.failed for batch in server.batch.created)
        assert failed > 0 and server.request_count - sent_online == failed
        phases = manifest(batched)["llm_usage"]["phases"]
        for phase in ("generate", "answer", "evaluate"):
            assert phases[phase]["batch_calls"] > 0, phase
        total = manifest(batched)["llm_usage"]["total"]
        assert total["batch_calls"] + total["batch_failed_lines"] == total["calls"]
        assert total["calls"] == manifest(online)["llm_usage"]["total"]["calls"]
