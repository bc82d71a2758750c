"""`evaluation.plan_llm_calls` and `Metric.llm_prompts`: the judge calls an LLM-judged evaluation will send,
planned by the metrics' own prompt builders."""

from __future__ import annotations

import json
from collections import Counter

from evaluation import Sample
from evaluation.engine import evaluate_dataset
from evaluation.metrics import AnswerRelevancy, ContextPrecision, ContextRecall, ExactMatch, Faithfulness
from evaluation.planning import plan_llm_calls
from ragtest_core.embeddings import Embedder
from ragtest_core.llm import PlannedCall
from ragtest_core.text import sentences_of
from tests.evaluation.helpers import MakeClient, one_row

ANSWER = "The Eiffel Tower is in Paris. It was built in 1889. It is painted blue."


def echoing_judge(prompt: str) -> str:
    """A judge whose statements are the answer's sentences, as the plan assumes."""
    if "break down each sentence" in prompt:
        return json.dumps({"statements": sentences_of(ANSWER)})
    if "faithfulness of a series of statements" in prompt:
        return json.dumps({"verdicts": [{"verdict": 1}] * 3})
    if "different questions" in prompt:
        return json.dumps({"questions": ["Where is the Eiffel Tower?"], "noncommittal": 0})
    if "Extract the sentences" in prompt:
        return json.dumps({"sentences": ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France."]})
    if "useful in arriving" in prompt:
        return json.dumps({"verdicts": [{"verdict": 1, "reason": "ok"}] * 3})
    if "classify each sentence" in prompt:
        return json.dumps({"classifications": [{"attributed": 1}, {"attributed": 1}]})
    raise AssertionError(prompt)


def test_planned_calls_are_exactly_the_prompts_sent(scripted_client: MakeClient, embedder: Embedder) -> None:
    frame = one_row(answer=ANSWER)
    planned = plan_llm_calls(frame)
    client, model = scripted_client(echoing_judge)
    evaluate_dataset(frame, judge="llm", llm=client, embedder=embedder)
    assert Counter(call.text() for call in planned) == Counter(model.prompts)
    stages = Counter(call.stage for call in planned)
    assert stages["context_precision.verdicts"] == 1 and stages["faithfulness.verdicts"] == 1
    assert len(planned) == 6


def test_rows_decided_without_a_judge_plan_no_calls() -> None:
    refusal = Sample(question="Who?", answer="I don't know.", contexts=("Some context.",), ground_truth="Ann.")
    no_contexts = {"question": "Who?", "answer": "Ann.", "contexts": [], "ground_truth": "Ann."}
    assert plan_llm_calls([refusal], ["faithfulness"]) == []
    assert plan_llm_calls([no_contexts], ["faithfulness", "context_recall", "context_precision"]) == []


def test_llm_prompts_per_metric() -> None:
    sample = Sample.from_row(one_row(answer=ANSWER).to_dict(orient="records")[0])
    statements, verdicts = Faithfulness().llm_prompts(sample)
    assert statements.echo == (ANSWER,) and verdicts.echo == tuple(sentences_of(ANSWER)) and verdicts.items == 3
    assert all(isinstance(call, PlannedCall) and call.schema is not None for call in (statements, verdicts))
    assert ExactMatch().llm_prompts(sample) == []
    (questions,) = AnswerRelevancy().llm_prompts(sample)
    assert questions.items == 3 and questions.stage == "answer_relevancy.questions"
    (recall,) = ContextRecall().llm_prompts(sample)
    assert recall.items == 2 and recall.echo == tuple(sentences_of(sample.ground_truth or ""))
    precision = ContextPrecision().llm_prompts(sample.__class__(question="Q?", answer="A.", contexts=("x",)))
    assert len(precision) == 1 and "answer: A." in precision[0].prompt  # no ground truth: the answer is the reference
