"""The claim-level diagnostics (RAGChecker): each definition pinned on hand-computed verdicts, then both judges on a
real row (real MiniLM for the local judge, a scripted chat model for the LLM judge), then `ragtest evaluate`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from evaluation.claim_diagnostics import ClaimCheck, diagnose
from evaluation.engine import evaluate_dataset
from evaluation.metrics.diagnostics import DIAGNOSTIC_CLASSES
from evaluation.planning import plan_llm_calls
from evaluation.registry import DEFAULT_METRICS
from ragtest.cli import main
from ragtest.report_panels import where_it_failed
from ragtest_core.datasets import read_jsonl
from ragtest_core.embeddings import Embedder
from tests.evaluation.helpers import MakeClient

T, F = True, False

# Three contexts; reference claims g0 in context 1, g1 in context 2, g2 in none: contexts 1 and 2 are relevant,
# context 3 is not. The answer has six claims, one of each kind (a5: incorrect, in a relevant AND an irrelevant
# context: it counts as relevant noise only).
HAND = ClaimCheck(
    answer_claims=("a0 correct, context 1", "a1 wrong, context 2", "a2 wrong, context 3", "a3 wrong, none",
                   "a4 correct, none", "a5 wrong, contexts 2 and 3"),
    reference_claims=("g0", "g1", "g2"),
    correct=(T, F, F, F, T, F),
    in_answer=(T, F, F),
    answer_in_context=((T, F, F), (F, T, F), (F, F, T), (F, F, F), (F, F, F), (F, T, T)),
    reference_in_context=((T, F, F), (F, T, F), (F, F, F)),
)  # fmt: skip

DIAGNOSTIC_METRICS = tuple(metric.name for metric in DIAGNOSTIC_CLASSES)


def test_each_definition_on_hand_computed_verdicts() -> None:
    found = {name: result.value for name, result in diagnose(HAND).items()}
    precision, recall = 2 / 6, 1 / 3  # a0, a4 correct of 6; g0 of 3 in the answer
    assert found == pytest.approx(
        {
            "answer_claim_precision": precision,
            "answer_claim_recall": recall,
            "answer_claim_f1": 2 * precision * recall / (precision + recall),
            "context_claim_recall": 2 / 3,  # g0, g1 are in some context; g2 in none
            "context_utilization": 1 / 2,  # of g0, g1 (in the contexts), the answer has g0
            "noise_sensitivity_relevant": 2 / 6,  # a1 (context 2), a5 (contexts 2 and 3)
            "noise_sensitivity_irrelevant": 1 / 6,  # a2 (context 3 only); a5 is not counted twice
            "hallucination": 1 / 6,  # a3
            "self_knowledge": 1 / 6,  # a4
        }
    )
    assert set(found) == set(DIAGNOSTIC_METRICS)
    assert diagnose(HAND)["hallucination"].reason == "1 of 6 answer claims are incorrect and entailed by no context"


def test_graded_verdicts_count_partially() -> None:
    graded = ClaimCheck(("a0", "a1"), ("g0",), (0.8, 0.0), (0.5,), ((0.9,), (0.2,)), ((0.6,),))
    found = {name: result.value for name, result in diagnose(graded).items()}
    assert found["answer_claim_precision"] == pytest.approx(0.4)  # (0.8 + 0) / 2
    assert found["context_utilization"] == pytest.approx(0.5)  # 0.6 * 0.5 / 0.6
    assert found["hallucination"] == pytest.approx((0.2 * 0.1 + 1.0 * 0.8) / 2)  # wrong x in no context
    assert found["noise_sensitivity_relevant"] == pytest.approx((0.2 * 0.9 * 0.6 + 1.0 * 0.2 * 0.6) / 2)


def test_empty_denominators_are_failures_with_a_reason() -> None:
    refusal = ClaimCheck((), ("g0",), (), (F,), (), ((T,),))
    found = diagnose(refusal)
    for name in ("answer_claim_precision", "hallucination", "self_knowledge", "noise_sensitivity_relevant"):
        assert found[name].value is None and found[name].reason == "the answer makes no claim to check"
    assert found["answer_claim_recall"].value == 0.0 and found["answer_claim_f1"].value is None
    assert found["context_claim_recall"].value == 1.0 and found["context_utilization"].value == 0.0
    unretrieved = ClaimCheck(("a0",), ("g0",), (T,), (T,), ((F,),), ((F,),))
    assert diagnose(unretrieved)["context_utilization"].reason == "no reference claim is in any retrieved context"
    assert diagnose(unretrieved)["self_knowledge"].value == 1.0
    with pytest.raises(ValueError, match="one verdict per answer claim"):
        ClaimCheck(("a0",), (), (), (), ((F,),), ())


ROW = {
    "question": "Where is the Eiffel Tower and when was it completed?",
    "ground_truth": "The Eiffel Tower is in Paris. It was completed in 1889.",
    "answer": "The Eiffel Tower is in Paris. It was completed in 1889. Bananas are rich in potassium. "
    "It is painted blue.",
    "contexts": [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
        "Bananas are rich in potassium.",
    ],
}
# Paris: correct, in context 1 (relevant); 1889: correct, in no context (self-knowledge); bananas: not in the
# reference, only in context 2 (irrelevant noise); painted blue: in nothing (hallucination).
EXPECTED = {
    "answer_claim_precision": 2 / 4,
    "answer_claim_recall": 1.0,
    "answer_claim_f1": 2 * 0.5 / 1.5,
    "context_claim_recall": 1 / 2,
    "context_utilization": 1.0,
    "noise_sensitivity_relevant": 0.0,
    "noise_sensitivity_irrelevant": 1 / 4,
    "hallucination": 1 / 4,
    "self_knowledge": 1 / 4,
}


def test_local_judge_diagnoses_a_real_row(embedder: Embedder) -> None:
    result = evaluate_dataset(
        pd.DataFrame([ROW]), metrics=list(DIAGNOSTIC_METRICS), embedder=embedder, show_progress=False
    )
    row = result.frame.iloc[0]
    # graded support: the verdicts are near 1/0 on these clear claims, so the counts are near the hand-made ones
    assert {name: row[name] for name in DIAGNOSTIC_METRICS} == pytest.approx(EXPECTED, abs=0.02)
    assert all(row[f"{name}_reason"] for name in DIAGNOSTIC_METRICS)
    details = result.results[0]["hallucination"].details
    assert [c["contexts"] for c in details["answer_claims"]] == [[1], [], [2], []]
    assert not set(DIAGNOSTIC_METRICS) & set(DEFAULT_METRICS)


def _verdict(statement: str, premise: str) -> int:
    """A careful judge: a statement is entailed when its key fact is in the premise."""
    facts = {"Paris": "Paris", "1889": "1889", "Bananas": "potassium", "blue": "blue"}
    key = next(k for k in facts if k in statement)
    return int(facts[key] in premise)


def judge_replies(prompt: str) -> str:
    if "break down each sentence" in prompt:
        text = prompt.split("answer: ")[-1]
        return json.dumps({"statements": re.findall(r"[^.]+\.", text)})
    if "faithfulness of a series of statements" in prompt:
        premise = prompt.split("context:\n")[-1].split("\n\nstatements:")[0]
        statements = re.findall(r"^\d+\. (.+)$", prompt.split("statements:\n")[-1], re.MULTILINE)
        return json.dumps({"verdicts": [{"verdict": _verdict(s, premise)} for s in statements]})
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def test_llm_judge_diagnoses_the_same_row(scripted_client: MakeClient, embedder: Embedder) -> None:
    client, model = scripted_client(judge_replies)
    frame = pd.DataFrame([ROW])
    result = evaluate_dataset(frame, metrics=list(DIAGNOSTIC_METRICS), judge="llm", llm=client, embedder=embedder)
    row = result.frame.iloc[0]
    assert {name: row[name] for name in DIAGNOSTIC_METRICS} == pytest.approx(EXPECTED)
    # two statement steps, answer vs reference, reference vs answer, one call per context; shared by all nine
    assert len(model.prompts) == 2 + 2 + len(ROW["contexts"])


def test_evaluate_cli_selects_the_diagnostics(tmp_path: Path) -> None:
    source, output = tmp_path / "answers.jsonl", tmp_path / "diagnosed.jsonl"
    source.write_text(json.dumps(ROW) + "\n")
    selected = "answer_claim_precision,context_claim_recall,context_utilization,hallucination"
    args = ["--quiet", "evaluate", "--input", str(source), "--metrics", selected, "--output", str(output)]
    assert main(args) == 0
    (row,) = read_jsonl(output)
    assert row["hallucination"] == pytest.approx(0.25, abs=0.02) and row["context_claim_recall"] == pytest.approx(
        0.5, abs=0.02
    )
    assert row["hallucination_reason"].endswith("of 4 answer claims are incorrect and entailed by no context")
    assert "faithfulness" not in row
    report = output.with_name("diagnosed.report.md").read_text()
    assert "## Where it failed" in report and "the largest loss is in the **retrieval**" in report
    assert "Where it failed" in output.with_name("diagnosed.report.html").read_text()


def test_where_it_failed_names_the_part_that_lost_most() -> None:
    def entry(mean: float) -> dict[str, float | int]:
        return {"mean": mean, "ci_low": mean - 0.1, "ci_high": mean + 0.1, "rows_scored": 20}

    summary = {
        "context_claim_recall": entry(0.85),
        "context_utilization": entry(0.5),
        "hallucination": entry(0.2),
        "noise_sensitivity_relevant": entry(0.05),
        "noise_sensitivity_irrelevant": entry(0.05),
        "faithfulness": entry(0.8),
    }
    panel = where_it_failed(summary)
    assert panel is not None and panel["weakest"] == "generator"
    assert [(r["part"], round(r["loss"], 3)) for r in panel["rows"]] == [
        ("generator", 0.5),  # 1 - context_utilization
        ("generator", 0.2),  # hallucination
        ("retrieval", 0.15),  # 1 - context_claim_recall
        ("noise", 0.1),  # both noise sensitivities
    ]
    assert panel["rows"][2]["ci_low"] == pytest.approx(0.05) and panel["rows"][2]["ci_high"] == pytest.approx(0.25)
    assert where_it_failed({"faithfulness": entry(0.8)}) is None  # no diagnostics scored: no panel


def test_planned_diagnostic_calls_are_the_calls_sent(scripted_client: MakeClient, embedder: Embedder) -> None:
    """With statements that are the texts' sentences (what the plan assumes), `--dry-run` plans exactly the calls the
    nine diagnostics send, once for all nine."""
    from collections import Counter

    frame = pd.DataFrame([ROW])
    planned = plan_llm_calls(frame, list(DIAGNOSTIC_METRICS))
    client, model = scripted_client(judge_replies)
    evaluate_dataset(frame, metrics=list(DIAGNOSTIC_METRICS), judge="llm", llm=client, embedder=embedder)
    assert Counter(call.text() for call in planned) == Counter(model.prompts)
    assert Counter(call.stage for call in planned)["claim_diagnostics.context"] == len(ROW["contexts"])
