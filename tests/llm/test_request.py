"""The request object: exactly what enters a cache key (the same keys as before it existed, so existing caches still
hit), where a call waits in the client's queue, and the judge passing a row's place and a repeat explicitly."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from evaluation.llm_judge import LLMJudge
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.llm import LLMClient, LLMConfig
from ragtest_core.llm.cache import LLMCache, cache_key
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.llm.request import LLMRequest
from tests.stubs.scripted import ScriptedChatModel

MESSAGES = (SystemMessage(content="You are a judge."), HumanMessage(content="Is the sky blue?"))
NATIVE = {"extra_body": {"response_format": {"type": "json_schema", "json_schema": {"name": "V"}}, "seed": 3}}


class Verdict(BaseModel):
    verdict: int


def test_the_key_is_the_model_the_messages_and_the_reply_parameters_only() -> None:
    request = LLMRequest(MESSAGES, "judge")
    key = request.cache_key("m", 0.0)
    roles = [{"role": "system", "content": "You are a judge."}, {"role": "human", "content": "Is the sky blue?"}]
    assert key == cache_key("m", roles, {"temperature": 0.0, "max_tokens": None})  # the keys of earlier runs
    same = [LLMRequest(MESSAGES, "other.label", priority=5, order=17), LLMRequest(MESSAGES, "judge", temperature=0.0)]
    assert all(other.cache_key("m", 0.0) == key for other in same)
    changed = [
        LLMRequest(MESSAGES[1:], "judge"),
        LLMRequest(MESSAGES, "judge", temperature=0.7),
        LLMRequest(MESSAGES, "judge", max_tokens=100),
        LLMRequest(MESSAGES, "judge", native=NATIVE),
        LLMRequest(MESSAGES, "judge", repeat=1),
    ]
    keys = {other.cache_key("m", 0.0) for other in changed} | {
        request.cache_key("m2", 0.0),
        request.cache_key("m", 1.0),
    }
    assert len(keys) == len(changed) + 2 and key not in keys
    native = LLMRequest(MESSAGES, "judge", native=NATIVE, repeat=2).cache_key("m", 0.0)
    format_ = {"response_format": NATIVE["extra_body"]["response_format"]}  # the format asked for, not the carrier
    assert native == cache_key("m", roles, {"temperature": 0.0, "max_tokens": None, "format": format_, "repeat": 2})


def test_invoke_keywords_carry_only_what_the_call_sets() -> None:
    assert LLMRequest(MESSAGES, "s").invoke_kwargs() == {}
    request = LLMRequest(MESSAGES, "s", temperature=0.2, max_tokens=50, native=NATIVE)
    assert request.invoke_kwargs() == {"temperature": 0.2, **NATIVE, "max_tokens": 50}


def test_a_repeat_asks_again_and_is_cached_apart(tmp_path: Any) -> None:
    model = ScriptedChatModel(responder=lambda prompt: '{"verdict": 1}')
    cache = LLMCache(tmp_path / "cache.sqlite")
    client = LLMClient(model, "scripted", config=LLMConfig(retries=0), cache=cache)

    async def ask(repeat: int) -> Verdict:
        return await client.structured("q", Verdict, stage="s", repeat=repeat)

    for repeat in (0, 1, 2, 0, 1, 2):
        assert run_sync(ask(repeat)).verdict == 1
    assert len(model.prompts) == 3 and len(cache) == 3


def test_the_queue_serves_priority_then_order_then_arrival() -> None:
    release = threading.Event()

    def reply(prompt: str) -> str:
        if prompt == "holds the slot":
            release.wait(10)
        return '{"verdict": 1}'

    model = ScriptedChatModel(responder=reply)
    client = LLMClient(model, "scripted", config=LLMConfig(concurrency=1, fixed_concurrency=True, retries=0))
    waiting = [("row 3", 0, 3), ("row 1", 0, 1), ("late row 1", 0, 1), ("first step of row 9", 1, 9), ("row 2", 0, 2)]

    async def scenario() -> None:
        held = asyncio.ensure_future(client.text("holds the slot", stage="s"))
        await asyncio.sleep(0.2)
        calls = []
        for prompt, priority, order in waiting:
            calls.append(asyncio.ensure_future(client.structured(prompt, Verdict, stage="s", priority=priority,
                                                                 order=order)))  # fmt: skip
            await asyncio.sleep(0.05)  # arrival order is the list's
        release.set()
        await asyncio.gather(held, *calls)

    run_sync(scenario())
    assert [p.split("\n")[0] for p in model.prompts[1:]] == [
        "first step of row 9",
        "row 1",
        "late row 1",
        "row 2",
        "row 3",
    ]


class Recording:
    """Stands in for the judge's client: records what each structured call was asked with."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def structured(self, prompt: Any, schema: type[Verdict], **options: Any) -> Verdict:
        self.calls.append(options)
        return Verdict(verdict=1)


def test_the_judge_passes_a_rows_place_and_its_repeat_to_the_client() -> None:
    client = Recording()
    judge = LLMJudge(llm=client, embedder=None, reference_mean=np.zeros(3), repeat=2)  # type: ignore[arg-type]
    call = PlannedCall(stage="m.step", prompt="Is it so?", schema=Verdict)

    async def rows() -> None:
        await asyncio.gather(judge.for_row(4).ask(call, Verdict, priority=1), judge.for_row(7).ask(call, Verdict))

    run_sync(rows())
    assert client.calls == [{"stage": "m.step", "priority": 1, "order": 4, "repeat": 2}]  # one prompt, asked once
    assert judge.for_row(4)._memo is judge._memo and judge.for_row(4).cpu is judge.cpu
