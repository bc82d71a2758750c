"""What keeps the LLM judge at its concurrency bound (python -m bench.llm_judge_bench measures it): every row's calls
wait in the client's one queue at once, a statement extraction ahead of the calls that wait for it, so a slot freed
by a reply goes straight to the next call: none is freed to an empty queue while calls remain to be made. Rows
scored in waves (a wave's calls only once the previous wave has replied) free slots to an empty queue at every wave's
end; the second test shows that the measure sees it. Real HTTP to the stub server, with a fixed latency."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from ragtest_core.llm import LLMClient, LLMConfig, build_client
from ragtest_core.llm.limits import AdaptiveConcurrency, QueueKey
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

SLOTS = 4
ROWS = 16
#: A reply's trip through both event loops (the verdicts are asked on the stage's loop) is short beside this; the
#: statements all leave first, so a verdict has more than half the run (7 of 12 latencies here) to join the queue.
LATENCY_MS = 150
METRICS = ["faithfulness", "context_precision"]  # statements -> verdicts (a chain), and one call on its own


class RecordingConcurrency(AdaptiveConcurrency):
    """A fixed limit that notes, in the I/O loop's order, each call that comes for a slot ("arrive") and each slot
    given back: handed straight to a waiting call ("handed") or left free ("freed")."""

    def __init__(self, slots: int) -> None:
        super().__init__(slots, floor=slots)
        self.events: list[str] = []

    async def acquire(self, key: QueueKey = (0, 0)) -> int:
        self.events.append("arrive")
        return await super().acquire(key)

    async def release(self) -> None:
        before = self.in_flight
        await super().release()
        self.events.append("handed" if self.in_flight == before else "freed")

    def idle_releases(self) -> int:
        """Slots left free before the last call came for one: a slot idle while work remained."""
        last = max(i for i, event in enumerate(self.events) if event == "arrive")
        return self.events[:last].count("freed")


@pytest.fixture
def rows(test_data: Path) -> pd.DataFrame:
    lines = (test_data / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines()[:ROWS]
    records = []
    for line in lines:
        row = json.loads(line)
        answer = row["answer"].removeprefix("Answer:").strip()
        question = row["question"].removeprefix("Question:").strip()
        records.append({"question": question, "answer": answer, "contexts": row["context_v2"], "ground_truth": answer})
    return pd.DataFrame(records)


@pytest.fixture
def stub() -> Iterator[OpenAIStubServer]:
    with OpenAIStubServer(latency_ms=LATENCY_MS, responder=PlausibleResponder(), lifetime_s=120) as server:
        yield server


def judge_client(stub: OpenAIStubServer) -> tuple[LLMClient, RecordingConcurrency]:
    slots = RecordingConcurrency(SLOTS)
    config = LLMConfig(concurrency=SLOTS, fixed_concurrency=True, timeout=30, retries=1)
    client = build_client("stub-model", base_url=stub.url, config=config, concurrency=slots)
    assert client is not None
    return client, slots


def score(frame: pd.DataFrame, client: LLMClient) -> pd.DataFrame:
    return evaluate_dataset(frame, metrics=METRICS, judge="llm", llm=client, show_progress=False).frame


def test_no_slot_idles_while_calls_remain(stub: OpenAIStubServer, rows: pd.DataFrame) -> None:
    client, slots = judge_client(stub)
    scored = score(rows, client)
    assert scored[METRICS].notna().all().all()
    calls = [r for r in stub.chat_requests if r.status == 200]
    assert len(calls) == 3 * ROWS == slots.events.count("arrive")
    assert stub.max_in_flight == SLOTS
    assert slots.idle_releases() == 0, slots.events


def test_rows_scored_in_waves_leave_slots_idle(stub: OpenAIStubServer, rows: pd.DataFrame) -> None:
    client, slots = judge_client(stub)
    waves = [score(rows.iloc[start : start + SLOTS], client) for start in range(0, ROWS, SLOTS)]
    assert pd.concat(waves)[METRICS].notna().all().all()
    assert slots.idle_releases() >= (ROWS // SLOTS - 1) * SLOTS  # every slot, at the end of each wave but the last
