"""The local OpenAI-compatible server itself: endpoints, choices, recording, seeded faults, lifetime cap."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from tests.stubs.openai_server import OpenAIStubServer, StubRequest


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{url}/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def chat(content: str, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}], **extra}


def test_models_endpoint(openai_server: OpenAIStubServer) -> None:
    with urllib.request.urlopen(f"{openai_server.url}/models", timeout=5) as response:
        data = json.loads(response.read())
    assert data["object"] == "list"
    assert data["data"][0]["id"] == "stub-model"
    assert openai_server.request_count == 0  # only chat completions count


def test_completion_shape_n_choices_and_response_format(openai_server: OpenAIStubServer) -> None:
    openai_server.script("one", "two", "three")
    status, _, raw = post(openai_server.url, chat("hi there", n=3, response_format={"type": "json_object"}))
    body = json.loads(raw)

    assert status == 200
    assert body["object"] == "chat.completion" and body["id"] and body["created"] > 0 and body["model"] == "m"
    assert [c["message"]["content"] for c in body["choices"]] == ["one", "two", "three"]
    assert [c["index"] for c in body["choices"]] == [0, 1, 2]
    assert {c["finish_reason"] for c in body["choices"]} == {"stop"}
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] == 2 + 3
    assert openai_server.chat_requests[0].body["response_format"] == {"type": "json_object"}


def test_replies_by_content_then_default(openai_server: OpenAIStubServer) -> None:
    def responder(request: StubRequest) -> str | None:
        return f"echo: {request.last_user}" if "echo" in request.prompt else None

    openai_server.responder = responder
    assert json.loads(post(openai_server.url, chat("echo me"))[2])["choices"][0]["message"]["content"] == (
        "echo: echo me"
    )
    assert json.loads(post(openai_server.url, chat("other"))[2])["choices"][0]["message"]["content"] == "ok"


def test_fault_statuses_and_headers(openai_server: OpenAIStubServer) -> None:
    openai_server.inject(0, "rate_limit", retry_after=7)
    openai_server.inject(1, "server_error")
    openai_server.inject(2, "unauthorized")
    openai_server.inject(3, "malformed")
    openai_server.inject(4, "truncate", keep_chars=3)
    openai_server.script("abcdefgh")

    status, headers, _ = post(openai_server.url, chat("a"))
    assert (status, headers["Retry-After"]) == (429, "7")
    assert post(openai_server.url, chat("b"))[0] == 500
    status, _, raw = post(openai_server.url, chat("c"))
    assert status == 401 and json.loads(raw)["error"]["code"] == "invalid_api_key"
    status, _, raw = post(openai_server.url, chat("d"))
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    choice = json.loads(post(openai_server.url, chat("e"))[2])["choices"][0]
    assert (choice["message"]["content"], choice["finish_reason"]) == ("abc", "length")
    assert json.loads(post(openai_server.url, chat("f"))[2])["choices"][0]["message"]["content"] == "abcdefgh"
    assert [r.faults for r in openai_server.chat_requests] == [
        ["rate_limit"],
        ["server_error"],
        ["unauthorized"],
        ["malformed"],
        ["truncate"],
        [],
    ]


def test_latency_fault(openai_server: OpenAIStubServer) -> None:
    openai_server.inject(0, "latency", latency_ms=300)
    started = time.monotonic()
    post(openai_server.url, chat("slow"))
    assert time.monotonic() - started >= 0.3


def test_seeded_fault_rates_are_reproducible() -> None:
    def fault_pattern(seed: int) -> list[list[str]]:
        with OpenAIStubServer(fault_rates={"server_error": 0.3}, seed=seed) as server:
            for i in range(40):
                post(server.url, chat(str(i)))
            return [list(r.faults) for r in server.chat_requests]

    first = fault_pattern(7)
    assert first == fault_pattern(7)
    assert 4 <= sum(1 for f in first if f) <= 22


def test_lifetime_cap_stops_the_server() -> None:
    server = OpenAIStubServer(lifetime_s=0.2).start()
    url = server.url
    time.sleep(0.6)
    with pytest.raises(RuntimeError):
        _ = server.url
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{url}/models", timeout=1)
    server.stop()  # idempotent


def test_stop_wakes_a_hanging_handler() -> None:
    with OpenAIStubServer(faults={0: "hang"}, hang_s=30) as server:
        model = ChatOpenAI(model="m", base_url=server.url, api_key="k", max_retries=0, timeout=0.3)  # type: ignore[arg-type]
        with pytest.raises(Exception, match=r"(?i)timed? ?out"):
            model.invoke("hang please")
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 1.0


class Verdict(BaseModel):
    verdict: int


def test_real_client_structured_output_and_generate_n(openai_server: OpenAIStubServer) -> None:
    openai_server.script('{"verdict": 1}', "a", "b", "c")
    model = ChatOpenAI(model="m", base_url=openai_server.url, api_key="k", max_retries=0)  # type: ignore[arg-type]
    three = ChatOpenAI(model="m", base_url=openai_server.url, api_key="k", max_retries=0, n=3)  # type: ignore[arg-type]

    result = model.with_structured_output(Verdict).invoke("judge this")
    generations = three.generate([[HumanMessage(content="three please")]]).generations[0]

    assert result == Verdict(verdict=1)
    assert "response_format" in openai_server.chat_requests[0].body
    assert [g.text for g in generations] == ["a", "b", "c"]


def test_streaming(openai_server: OpenAIStubServer) -> None:
    openai_server.script("streamed reply")
    openai_server.usage = (5, 2)
    model = ChatOpenAI(model="m", base_url=openai_server.url, api_key="k", max_retries=0, stream_usage=True)  # type: ignore[arg-type]

    chunks = list(model.stream("stream please"))

    assert "".join(str(c.content) for c in chunks) == "streamed reply"
    assert openai_server.chat_requests[0].body["stream"] is True
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert usage and usage[-1]["input_tokens"] == 5
