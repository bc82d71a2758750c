"""The LLM judge's call shapes: calls per row for each metric (shared steps counted once), context precision in
one call (hand-computed scores), citations read from the shared statements, and `--dry-run` plans exactly the
calls that are sent, for every LLM metric."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.metrics.citations import cited_units
from evaluation.planning import plan_llm_calls
from ragtest_core.embeddings import Embedder
from ragtest_core.text import sentences_of
from tests.evaluation.helpers import MakeClient, one_row

CITED = "The Eiffel Tower is in Paris [1][2]. It was built in 1889 [3]. It is painted blue [1]."
_NUMBERED = re.compile(r"^\d+\. ", re.MULTILINE)
_BLOCK = re.compile(r"^\[\d+\] ", re.MULTILINE)


def data(prompt: str, start: str) -> str:
    return prompt.split(start, 1)[1]


def universal_judge(prompt: str) -> str:
    """A valid reply to every judge prompt; statements are the text's sentences, as the plans assume."""
    if "break down each sentence" in prompt:
        return json.dumps({"statements": sentences_of(data(prompt, "\nanswer: "))})
    if "faithfulness of a series" in prompt:
        items = len(_NUMBERED.findall(data(prompt, "\nstatements:\n")))
        return json.dumps({"verdicts": [{"statement": "s", "reason": "r", "verdict": 1}] * items})
    if "questions that the given answer answers" in prompt:
        return json.dumps({"questions": ["Where is the Eiffel Tower?"] * 3, "noncommittal": 0})
    if "Extract the sentences" in prompt:
        return json.dumps({"sentences": []})
    if "whether it was useful" in prompt:
        contexts = data(prompt, "\ncontexts:\n")
        verdicts = [{"reason": "r", "verdict": int("Bananas" not in c)} for c in contexts.split("\n\n")]
        return json.dumps({"verdicts": verdicts})
    if "as attributable to the context" in prompt:
        items = len(_NUMBERED.findall(data(prompt, "reference sentences:\n")))
        return json.dumps({"classifications": [{"sentence": "s", "reason": "r", "attributed": 1}] * items})
    if "classify them: TP" in prompt:
        return json.dumps({"TP": [{"statement": "s"}], "FP": [], "FN": []})
    if "Does the premise fully support" in prompt:
        return json.dumps({"verdict": 1})
    if "Does the answer decline" in prompt:
        return json.dumps({"rejected": 1})
    raise AssertionError(f"unexpected prompt: {prompt[:160]}")


def cited_row(**overrides: object) -> pd.DataFrame:
    return one_row(answer=CITED, question_type="distracting", **overrides)


#: Calls one row costs per metric alone (row: a cited three-sentence answer, three contexts, a two-sentence ground
#: truth). citation metrics: the statements, then one entailment call per citation set ALCE needs ([1][2]: the pair
#: and each alone; [3]; [1]).
CALLS_PER_ROW = {
    "faithfulness": 2,  # statements, verdicts
    "answer_relevancy": 1,  # questions from the answer
    "context_precision": 1,  # one verdict per context, one call
    "context_recall": 1,
    "context_relevance": 1,
    "answer_correctness": 3,  # the answer's and the ground truth's statements, the classification
    "citation_recall": 1 + 5,
    "citation_precision": 1 + 5,
    "noise_robustness": 3,  # answer_correctness' calls
}


@pytest.mark.parametrize(("metric", "calls"), sorted(CALLS_PER_ROW.items()))
def test_calls_per_row_for_each_metric(
    metric: str, calls: int, scripted_client: MakeClient, embedder: Embedder
) -> None:
    client, model = scripted_client(universal_judge)
    result = evaluate_dataset(
        cited_row(), metrics=[metric], judge="llm", llm=client, embedder=embedder, show_progress=False
    )
    assert result.frame.loc[0, metric] is not None, result.frame.loc[0, f"{metric}_reason"]
    assert len(model.prompts) == calls


def test_negative_rejection_is_one_call(scripted_client: MakeClient) -> None:
    client, model = scripted_client(universal_judge)
    frame = one_row(answer="The tower may be in Paris.", question_type="unanswerable")
    result = evaluate_dataset(frame, metrics=["negative_rejection"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "negative_rejection"] == 1.0 and len(model.prompts) == 1


def test_shared_statements_and_calls_are_sent_once(scripted_client: MakeClient, embedder: Embedder) -> None:
    client, model = scripted_client(universal_judge)
    metrics = list(CALLS_PER_ROW)
    result = evaluate_dataset(
        cited_row(), metrics=metrics, judge="llm", llm=client, embedder=embedder, show_progress=False
    )
    assert all(result.frame.loc[0, m] is not None for m in metrics)
    kinds = Counter(prompt.split(".", 1)[0] for prompt in model.prompts)
    assert sum("break down each sentence" in p for p in model.prompts) == 2  # the answer's and the ground truth's
    assert sum("classify them: TP" in p for p in model.prompts) == 1  # answer_correctness and noise_robustness
    assert sum("Does the premise fully support" in p for p in model.prompts) == 5  # both citation metrics
    # 2 statements + faithfulness 1 + relevancy 1 + precision 1 + recall 1 + relevance 1 + classify 1 + 5 support
    assert len(model.prompts) == 13 < sum(CALLS_PER_ROW.values()), kinds
    usage = client.usage.stages
    assert usage["statements.extract"].calls == 2 and usage["context_precision.verdicts"].calls == 1


def test_every_llm_metric_plans_exactly_the_calls_it_sends(scripted_client: MakeClient, embedder: Embedder) -> None:
    frame = pd.concat(
        [cited_row(), one_row(answer="I am not sure, it may be in Paris.", question_type="unanswerable")],
        ignore_index=True,
    )
    metrics = [*CALLS_PER_ROW, "negative_rejection"]
    planned = plan_llm_calls(frame, metrics)
    client, model = scripted_client(universal_judge)
    evaluate_dataset(frame, metrics=metrics, judge="llm", llm=client, embedder=embedder, show_progress=False)
    assert Counter(call.text() for call in planned) == Counter(model.prompts)
    assert {call.stage.split(".")[0] for call in planned} >= {
        "statements",
        "answer_correctness",
        "citation_recall",
        "negative_rejection",
    }


PRECISION_CASES = [  # verdicts in rank order -> sum_k(precision@k * v_k) / useful, by hand
    ([0, 1], 0.5),  # (1/2) / 1
    ([1, 0, 0, 1], 0.75),  # (1 + 2/4) / 2
    ([0, 1, 1], (1 / 2 + 2 / 3) / 2),
    ([1, 1, 1, 0], 1.0),
    ([0, 0, 0, 1], 0.25),
]


def test_context_precision_judges_all_contexts_in_one_call(scripted_client: MakeClient) -> None:
    rows = [
        one_row(contexts=[f"{'Useful' if v else 'Noise'} context number {i}." for i, v in enumerate(verdicts)])
        for verdicts, _ in PRECISION_CASES
    ]

    def judge(prompt: str) -> str:
        blocks = _BLOCK.split(data(prompt, "\ncontexts:\n"))[1:]
        return json.dumps({"verdicts": [{"reason": "r", "verdict": int("Useful" in b)} for b in blocks]})

    client, model = scripted_client(judge)
    frame = pd.concat(rows, ignore_index=True)
    result = evaluate_dataset(frame, metrics=["context_precision"], judge="llm", llm=client, show_progress=False)
    assert result.frame["context_precision"].tolist() == pytest.approx([score for _, score in PRECISION_CASES])
    assert len(model.prompts) == len(PRECISION_CASES)  # one call per row, whatever its number of contexts


def test_context_precision_notes_a_wrong_verdict_count(scripted_client: MakeClient) -> None:
    client, _ = scripted_client(lambda prompt: json.dumps({"verdicts": [{"verdict": 0}, {"verdict": 1}]}))
    result = evaluate_dataset(one_row(), metrics=["context_precision"], judge="llm", llm=client, show_progress=False)
    assert result.frame.loc[0, "context_precision"] == pytest.approx(0.5)  # [0, 1] of the three contexts
    assert "2 verdicts for 3 items" in result.frame.loc[0, "context_precision_reason"]


class ThreadRecordingEmbedder(Embedder):
    """The session's model; records the thread of every call that embeds something new."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name, base.batch_size, base.dtype)
        self._model = base.model
        self.threads: set[str] = set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if any(t not in self._memo for t in texts):
            self.threads.add(threading.current_thread().name)
        return super().embed(texts)


def test_cpu_work_runs_beside_the_event_loop(scripted_client: MakeClient, embedder: Embedder) -> None:
    recording = ThreadRecordingEmbedder(embedder)
    client, _ = scripted_client(universal_judge)
    metrics = ["answer_relevancy", "answer_correctness", "semantic_similarity", "faithfulness"]
    result = evaluate_dataset(
        cited_row(), metrics=metrics, judge="llm", llm=client, embedder=recording, show_progress=False
    )
    assert all(result.frame.loc[0, m] is not None for m in metrics)
    assert recording.threads and all(name.startswith("ragtest-judge-cpu") for name in recording.threads)


def test_citations_read_the_shared_statements() -> None:
    statements = ["The Eiffel Tower is in Paris [1][2].", "The Eiffel Tower was built in 1889.", "It is blue [1]."]
    assert cited_units(statements, CITED) == [
        ("The Eiffel Tower is in Paris.", (1, 2)),
        ("The Eiffel Tower was built in 1889.", (3,)),  # no markers: those of the sentence it comes from
        ("It is blue.", (1,)),
    ]
    assert cited_units(["Bananas are yellow."], CITED) == [("Bananas are yellow.", ())]  # from no cited sentence
