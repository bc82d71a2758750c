"""`ragtest evaluate --judge llm` against the local OpenAI-compatible server on real WikiEval rows: the model name
sent, native structured output (or the schema in the prompt when asked), calls per row, utilisation in the manifest,
and a `--dry-run` that plans every LLM metric's calls, exactly the ones sent."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluation.meta_eval import load_wikieval
from ragtest.cli import main
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

FOUR = "faithfulness,answer_relevancy,context_precision,context_recall"
MORE = "answer_correctness,citation_recall,citation_precision,noise_robustness,negative_rejection"


@pytest.fixture
def server() -> Iterator[OpenAIStubServer]:
    responder = PlausibleResponder()
    support = re.compile(r"Does the premise fully support|Does the answer decline|classify them: TP")

    def reply(request: object) -> str | None:
        prompt = getattr(request, "prompt", "")
        if support.search(prompt):  # the judge prompts PlausibleResponder does not know: a valid verdict
            return json.dumps({"reason": "r", "verdict": 1, "rejected": 0, "TP": [], "FP": [], "FN": []})
        return responder(request)  # type: ignore[arg-type]

    with OpenAIStubServer(responder=reply, lifetime_s=240) as stub:
        yield stub


@pytest.fixture
def wikieval_file(test_data: Path, tmp_path: Path) -> Path:
    rows = load_wikieval(test_data / "wikieval" / "wikieval.jsonl")[:3]
    path = tmp_path / "wikieval3.jsonl"
    records = [
        {
            "question": r["question"],
            "answer": f"{r['answer']} [1]",
            "contexts": list(r["context_v2"]),
            "ground_truth": r["answer"],
            "question_type": "distracting",
        }
        for r in rows
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def evaluate(server: OpenAIStubServer, source: Path, output: Path, metrics: str, *extra: str) -> int:
    args = ["--quiet", "evaluate", "--input", str(source), "--output", str(output), "--metrics", metrics]
    args += ["--judge", "llm", "--llm", "openai:stub-model", "--llm-base-url", server.url, "--no-cache", *extra]
    return main(args)


def test_llm_judge_cli_native_structured_output(server: OpenAIStubServer, wikieval_file: Path, tmp_path: Path) -> None:
    output = tmp_path / "scored.jsonl"
    assert evaluate(server, wikieval_file, output, FOUR, "--llm-concurrency", "16") == 0
    requests = server.chat_requests
    assert {r.body["model"] for r in requests} == {"stub-model"}  # no provider prefix on an OpenAI-compatible URL
    assert all(r.response_schema is not None and r.schema_errors == [] for r in requests)
    assert len(requests) == 3 * 5  # faithfulness 2, answer_relevancy 1, context_precision 1, context_recall 1
    manifest = json.loads(output.with_name("scored.manifest.json").read_text())
    assert manifest["llm_runtime"]["structured_output"] == "native"
    assert 0 < manifest["llm_usage"]["phases"]["evaluate"]["utilisation"] <= 1.0
    assert manifest["llm_usage"]["total"]["concurrency"] == 16


def test_llm_judge_cli_schema_in_the_prompt(server: OpenAIStubServer, wikieval_file: Path, tmp_path: Path) -> None:
    output = tmp_path / "scored.jsonl"
    assert evaluate(server, wikieval_file, output, "faithfulness", "--llm-structured-output", "prompt") == 0
    for request in server.chat_requests:
        assert request.response_schema is None
        system, user = request.messages
        assert system["role"] == "system" and "conforms to this JSON schema" in system["content"]
        assert "JSON schema" not in user["content"]  # the stable part first, the row's data last


def test_dry_run_plans_every_llm_metric_and_the_run_sends_those_calls(
    server: OpenAIStubServer, wikieval_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "scored.jsonl"
    metrics = f"{FOUR},{MORE}"
    assert evaluate(server, wikieval_file, output, metrics, "--dry-run") == 0
    report = capsys.readouterr().out
    assert server.request_count == 0
    for label in ("statements.extract", "answer_correctness.classify", "citation_recall.support", "faithfulness"):
        assert label in report
    planned = int(re.search(r"^\s+total\s+calls=(\d+)", report, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert evaluate(server, wikieval_file, output, metrics) == 0
    assert server.request_count == planned  # the plan's statements stand in for the judge's: the same here
