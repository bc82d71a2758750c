"""The trust loop through the command line on a real scored run: `evaluate --labels` (PPI in summary.json and the
report), `meta-eval --labels` (own labels; WikiEval exported as scored + labels gives the same agreement as
`--wikieval`), `answer` and `run --testset` on a reviewed test set, `compare` with labels on both sides, and
`--repeats` with an LLM judge whose verdicts waver."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluation.meta_eval import load_wikieval
from ragtest.cli import main
from ragtest.review import TestsetReview
from ragtest_core.datasets import read_jsonl
from ragtest_core.labels import answer_id, write_labels
from tests.e2e.conftest import METRICS, TwoVariants
from tests.e2e.review_helpers import copy_run
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder, original_prompt


def synthetic_labels(scores: Path, metric: str, rows: int, seed: int = 0) -> list[dict[str, Any]]:
    """A labeller who mostly agrees with the judge (yes at >= 0.5), on the first `rows` rows."""
    rng = np.random.default_rng(seed)
    labels = []
    for row in read_jsonl(scores)[:rows]:
        score = row[metric]
        agree = rng.random() < 0.8
        value = float((score >= 0.5) == agree) if score is not None else 1.0
        labels.append({"sample_id": row["sample_id"], "labeller": "ana", metric: value, "answer_id": answer_id(row)})
    return labels


def test_evaluate_with_labels_adds_ppi(two_variants: TwoVariants, tmp_path: Path) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    rows = synthetic_labels(run / "scores.jsonl", "answer_correctness", 10)
    skipped = [  # rows skipped on the review page: ana on a row she did not label, bo on everything he saw
        {"sample_id": row["sample_id"], "labeller": who, "note": "skipped", "answer_id": answer_id(row)}
        for who, picked in (("ana", slice(10, 12)), ("bo", slice(0, 3)))
        for row in read_jsonl(run / "scores.jsonl")[picked]
    ]
    labels = write_labels(rows + skipped, run / "labels.jsonl")
    output = tmp_path / "again" / "scores.jsonl"
    args = ["--quiet", "evaluate", "--input", str(run / "answers.jsonl"), "--metrics", METRICS]
    assert main([*args, "--labels", str(labels), "--output", str(output)]) == 0
    summary = json.loads((output.parent / "summary.json").read_text())
    ppi = summary["metrics"]["answer_correctness"]["ppi"]
    assert ppi["n_labels"] == 10 and ppi["n_unlabelled"] == 5
    assert ppi["ci_low"] <= ppi["mean"] <= ppi["ci_high"]
    assert "ppi" not in summary["metrics"]["faithfulness"]  # no labels for it
    assert summary["labels"]["file"] == str(labels.resolve()) and summary["labels"]["labellers"] == ["ana"]
    assert summary["labels"]["rows"] == 10  # the 5 skipped rows are no labels, and bo, who only skipped, no labeller
    assert "prediction-powered" in (output.parent / "report.html").read_text()
    assert "| answer_correctness |" in (output.parent / "report.md").read_text().split("labels (prediction-powered)")[1]


def test_meta_eval_on_own_labels(two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    labels = write_labels(synthetic_labels(run / "scores.jsonl", "faithfulness", 15), run / "labels.jsonl")
    assert main(["meta-eval", "--labels", str(labels), str(run), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    entry = report["metrics"]["faithfulness"]
    assert entry["kind"] == "yes/no" and entry["n_labelled"] == 15 and entry["kappa"]["n"] == 15
    assert entry["headline"] == "roc_auc" and sum(entry["confusion"].values()) == 15
    assert main(["meta-eval", "--labels", str(labels)]) == 2  # the scored run is needed too


def test_wikieval_as_labels_gives_the_same_agreement(
    test_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wikieval = test_data / "wikieval" / "wikieval.jsonl"
    export = tmp_path / "wikieval"
    common = ["--quiet", "meta-eval", "--json", "--out", str(tmp_path / "cache")]
    assert main([*common, "--wikieval", str(wikieval), "--limit", "8", "--export", str(export)]) == 0
    table = json.loads(capsys.readouterr().out.split("\nwrote ")[0])
    assert main(["meta-eval", "--json", "--labels", str(export / "labels.jsonl"), str(export / "scored.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    names = {"faithfulness": "faithfulness", "answer_relevancy": "answer relevance",
             "context_relevance": "context relevance"}  # fmt: skip
    for metric, label in names.items():
        assert report["metrics"][metric]["pairwise_accuracy"]["value"] == pytest.approx(table["agreement"][label])
        assert report["metrics"][metric]["pairwise_accuracy"]["n"] == 8


def review_some(testset: Path) -> TestsetReview:
    review = TestsetReview(testset)
    review.decide(0, "rejected", reason="not answerable from the page")
    review.decide(1, "edited", question="What is Python?", ground_truth=review.rows[1]["ground_truth"])
    review.decide(2, "accepted")
    return review


def test_answer_and_run_use_the_reviewed_test_set(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    review = review_some(run / "testset.jsonl")
    answers = run / "v2" / "answers.jsonl"
    assert main(["--quiet", "answer", "--input", str(run / "testset.jsonl"), "--output", str(answers)]) == 0
    assert "using the reviewed test set" in capsys.readouterr().err
    rows = read_jsonl(answers)
    assert len(rows) == len(review.rows) - 1 and rows[0]["question"] == "What is Python?"
    assert rows[0]["original_question"] == review.rows[1]["question"] and rows[0]["review_status"] == "edited"
    assert review.keys[0] not in {row["sample_id"] for row in rows}

    out = tmp_path / "from-testset"
    assert main(["--quiet", "run", "--testset", str(run / "testset.jsonl"), "--metrics", "faithfulness,hit_rate",
                 "--out", str(out)]) == 0  # fmt: skip
    assert len(read_jsonl(out / "testset.jsonl")) == len(review.rows) - 1
    assert len(read_jsonl(out / "scores.jsonl")) == len(review.rows) - 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats"]["testset_from"].endswith("testset.reviewed.jsonl")
    assert main(["--quiet", "run", "--testset", str(tmp_path / "nothing.jsonl"), "--out", str(out)]) == 2


def planned_calls(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, int]:
    assert main(["run", *args, "--llm", "openai:gpt-4o-mini", "--dry-run"]) == 0
    report = capsys.readouterr().out
    lines = re.finditer(r"^\s+(phase \w+|\S+)\s+calls=(\d+)", report, re.MULTILINE)
    return {m.group(1): int(m.group(2)) for m in lines}


def test_dry_run_of_a_run_on_a_reviewed_test_set(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    review = review_some(run / "testset.jsonl")
    once = planned_calls(capsys, "--testset", str(run / "testset.jsonl"), "--metrics", "faithfulness")
    twice = planned_calls(
        capsys, "--testset", str(run / "testset.jsonl"), "--metrics", "faithfulness", "--repeats", "2"
    )
    assert "phase generate" not in once  # nothing is generated
    assert once["phase answer"] == len(review.rows) - 1  # one reference-RAG call per reviewed question
    assert twice["phase evaluate"] == 2 * once["phase evaluate"] > 0  # each repeat asks again


def test_compare_uses_ppi_when_both_runs_have_labels(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = copy_run(two_variants, tmp_path / "base", "base")
    new = copy_run(two_variants, tmp_path / "new", "new")
    for side in (base, new):
        write_labels(synthetic_labels(side / "scores.jsonl", "context_recall", 12, seed=1), side / "labels.jsonl")
    out = tmp_path / "cmp"
    code = main(
        ["compare", str(base), str(new), "--fail-if", "context_recall<-0.9,faithfulness<-0.9", "--out", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "with human labels (PPI)" in printed and re.search(r"context_recall < -0\.9: pass \(PPI change", printed)
    assert re.search(r"faithfulness < -0\.9: pass \(change", printed)  # no labels for it: the judge's change
    data = json.loads((out / "compare.json").read_text())
    ppi = data["ppi"]["context_recall"]
    assert ppi["paired"] and ppi["n_labels"] == 12 and ppi["ci_low"] <= ppi["change"] <= ppi["ci_high"]
    assert "prediction-powered" in (out / "compare.html").read_text()


class Wavering:
    """The plausible stub judge, except that the second time it is asked the same verdict prompt (the second
    repeat of a row) it flips its verdicts: every row wavers, whatever order the concurrent calls arrive in (a
    count over all calls let a row land on the same parity in every repeat, and the test failed now and then)."""

    def __init__(self) -> None:
        self.responder = PlausibleResponder()
        self.asked: Counter[str] = Counter()

    def __call__(self, request: Any) -> str | None:
        reply = self.responder(request)
        if reply is None or '"verdicts"' not in reply:
            return reply
        prompt = original_prompt(request)
        self.asked[prompt] += 1
        if self.asked[prompt] != 2:
            return reply
        data = json.loads(reply)
        for verdict in data["verdicts"]:
            verdict["verdict"] = 1 - int(verdict["verdict"])
        return json.dumps(data)


@pytest.fixture
def wavering() -> Iterator[OpenAIStubServer]:
    with OpenAIStubServer(responder=Wavering(), lifetime_s=240) as stub:
        yield stub


def test_repeats_report_judge_stability(wavering: OpenAIStubServer, test_data: Path, tmp_path: Path) -> None:
    rows = load_wikieval(test_data / "wikieval" / "wikieval.jsonl")[:4]
    source = tmp_path / "rows.jsonl"
    records = [{"question": r["question"], "answer": r["answer"], "contexts": list(r["context_v1"])} for r in rows]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    output = tmp_path / "scored.jsonl"
    args = ["--quiet", "evaluate", "--input", str(source), "--output", str(output), "--metrics", "faithfulness"]
    llm = ["--judge", "llm", "--llm", "openai:stub-model", "--llm-base-url", wavering.url]
    assert main([*args, *llm, "--repeats", "3"]) == 0
    assert wavering.request_count == 3 * 2 * 4  # statements + verdicts, per row and repeat: none from the cache
    summary = json.loads(output.with_name("scored.summary.json").read_text())
    stability = summary["metrics"]["faithfulness"]["stability"]
    assert stability["repeats"] == 3 and stability["rows"] == 4 and stability["rows_verdict_changed"] >= 1
    assert summary["scoring"]["repeats"] == 3
    report = output.with_name("scored.report.html").read_text()
    assert "Judge stability" in report and "<strong>unstable</strong>" in report
    scored = read_jsonl(output)
    assert all(len(row["faithfulness_repeats"]) == 3 for row in scored)
    assert main([*args, *llm, "--repeats", "3"]) == 0 and wavering.request_count == 24  # the re-run: all cached
    assert main([*args, "--repeats", "2"]) == 2  # the local judge does not waver
