"""The LLM judge for the newer metrics through the real ChatOpenAI client and the OpenAI-compatible stub server:
scripted verdicts give the scores of the hand-computed formulas."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import LLMConfig, build_client
from tests.evaluation.helpers import one_row
from tests.stubs.openai_server import OpenAIStubServer, StubRequest, openai_server  # noqa: F401

CITED = "The Eiffel Tower is in Paris [1][2]. It was built in 1889 [3]. It is painted blue [1]."
QUESTION = "Where is the Eiffel Tower and when was it built?"


def between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def judge(request: StubRequest) -> str:
    prompt = request.prompt  # the instructions (system message), then the data (user message)
    if "break down each sentence" in prompt:
        if "blue" in between(prompt, "answer:", "\n\n"):  # statements keep their sentence's citation markers
            return json.dumps(
                {"statements": ["The tower is in Paris [1][2].", "It was built in 1889 [3].", "It is blue [1]."]}
            )
        return json.dumps({"statements": ["The tower is in Paris.", "It was built in 1889."]})
    if "classify them: TP" in prompt:
        item = {"statement": "s", "reason": "r"}
        return json.dumps({"TP": [item, item], "FP": [item], "FN": []})
    if "Does the premise fully support" in prompt:
        premise, hypothesis = between(prompt, "premise:", "hypothesis:"), between(prompt, "hypothesis:", "\n\n")
        supported = any(word in hypothesis and word in premise for word in ("Paris", "1889"))
        return json.dumps({"reason": "checked", "verdict": int(supported)})
    if "Does the answer decline" in prompt:
        return json.dumps({"reason": "r", "rejected": int("don't know" in between(prompt, "answer:", "\n\n"))})
    if "questions that the given answer answers" in prompt:
        return json.dumps({"questions": [QUESTION] * 3, "noncommittal": 0})
    raise AssertionError(f"unexpected prompt: {prompt[:120]}")


@pytest.mark.parametrize("weights", [(0.75, 0.25)])
def test_llm_judge_through_the_stub_server(
    openai_server: OpenAIStubServer,  # noqa: F811
    embedder: Embedder,
    weights: tuple[float, float],
) -> None:
    openai_server.responder = judge
    client = build_client("stub-model", base_url=openai_server.url, config=LLMConfig(retries=0, timeout=10))
    frame = pd.concat(
        [one_row(answer=CITED, question_type="simple"), one_row(answer="I don't know.", question_type="unanswerable")],
        ignore_index=True,
    )
    metrics = ["answer_correctness", "citation_recall", "citation_precision", "negative_rejection", "answer_relevancy"]
    result = evaluate_dataset(frame, metrics=metrics, judge="llm", llm=client, embedder=embedder, show_progress=False)
    row = result.frame.iloc[0]
    similarity = float(embedder.similarity([CITED], [str(frame.loc[0, "ground_truth"])])[0, 0])
    assert row["answer_correctness"] == pytest.approx(weights[0] * 2 / 2.5 + weights[1] * similarity, abs=1e-6)
    assert row["citation_recall"] == pytest.approx(2 / 3)  # "blue" is not supported by [1]
    assert row["citation_precision"] == pytest.approx(2 / 4)  # [2] is irrelevant (ALCE), [1] on "blue" imprecise
    assert row["answer_relevancy"] == pytest.approx(1.0, abs=1e-5)
    assert row["negative_rejection"] is None
    refusal = result.frame.iloc[1]
    assert refusal["negative_rejection"] == 1.0 and refusal["answer_correctness"] == 0.0
    assert refusal["citation_recall"] == 1.0
    prompts = [r.prompt for r in openai_server.chat_requests]
    # 3 + 1 + 1 citation subsets; the second citation metric's identical prompts come from the client's cache
    assert sum("Does the premise fully support" in p for p in prompts) == 5
    assert sum("Does the answer decline" in p for p in prompts) == 1
