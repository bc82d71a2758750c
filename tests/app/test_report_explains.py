"""A report that explains itself, checked on a real run of the demo (`make demo`): each metric's definition and
scale beside its score (report.html, report.md, compare), every id printed with what it is for, the line of the rows
to look at explained, the prediction-powered means on the console with what they correct, and `cost=n/a` pointing
to `--prices`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape

import ragtest
from evaluation import Metric, register_metric, unregister_metric
from evaluation.metric import NO_DEFINITION
from evaluation.metrics import BUILTIN_METRICS
from evaluation.registry import available_metrics, metric_explanation
from ragtest.markdown_text import markdown_inline
from ragtest.report import write_run_report
from ragtest.report_explain import (
    JUDGE_SETTINGS_ID,
    PPI_CORRECTS,
    ROWS_TO_LOOK_AT,
    TESTSET_ID,
)
from ragtest_core.datasets import read_jsonl
from ragtest_core.labels import answer_id, write_labels
from tests.app.demo_run import ragtest as cli
from tests.app.demo_run import run_demo
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

HASH = re.compile(r"\b[0-9a-f]{12}\b")
SVG = re.compile(r"<svg.*?</svg>", re.S)


@dataclass(frozen=True)
class Demo:
    run: Path
    printed: str

    @property
    def summary(self) -> dict:
        return json.loads((self.run / "summary.json").read_text(encoding="utf-8"))

    @property
    def md(self) -> str:
        return (self.run / "report.md").read_text(encoding="utf-8")

    @property
    def html(self) -> str:
        return (self.run / "report.html").read_text(encoding="utf-8")

    def scores(self) -> pd.DataFrame:
        return pd.DataFrame(read_jsonl(self.run / "scores.jsonl"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    run = tmp_path_factory.mktemp("demo") / "run"
    return Demo(run, run_demo(run))


def md_row(md: str, metric: str) -> str:
    """The first row of a Markdown table whose first cell is `metric`."""
    [row] = [line for line in md.splitlines() if line.startswith(f"| {metric} | ")][:1]
    return row


def html_row(html: str, metric: str) -> str:
    """The <tr> whose first cell names `metric` (the scores or change-per-metric table)."""
    [row] = [r for r in re.findall(r"<tr>(.*?)</tr>", html, re.S) if f"<strong>{metric}</strong>" in r][:1]
    return row


def test_every_builtin_metric_declares_its_definition_and_scale() -> None:
    for metric_class in BUILTIN_METRICS:  # declared on the class itself, never inherited from a sibling
        assert "definition" in vars(metric_class), metric_class.__name__
    names = [*available_metrics(), "hit_rate@10", "ndcg@3"]
    for name in names:
        explained = metric_explanation(name)
        assert explained.name == name and explained.defined and explained.scale_note, name
    definitions = {metric_explanation(name).definition for name in available_metrics()}
    assert len(definitions) == len(available_metrics())  # no copy-pasted line
    assert metric_explanation("hit_rate@10").definition == metric_explanation("hit_rate").definition
    assert not metric_explanation("hallucination").higher_is_better


def test_each_metric_is_defined_beside_its_score_in_both_reports(demo: Demo) -> None:
    summary = demo.summary["metrics"]
    assert sorted(summary) == sorted(["faithfulness", "answer_relevancy", "context_relevance", "context_precision",
                                      "context_recall"])  # fmt: skip
    for name, entry in summary.items():
        explained = metric_explanation(name)
        mean = f"{entry['mean']:.3f}"
        row = md_row(demo.md, name)
        assert f"| {name} | {mean} |" in row
        assert markdown_inline(explained.definition) in row and markdown_inline(explained.scale_note) in row
        cell = html_row(demo.html, name)
        assert f'<td class="num">{mean}</td>' in cell
        assert str(escape(explained.definition)) in cell and str(escape(explained.scale_note)) in cell


def test_context_relevance_says_its_local_scale_reads_low_and_the_demo_bears_it_out(demo: Demo) -> None:
    """The note's figures are the demo's own: rows whose contexts hold the whole reference answer (every gold chunk
    retrieved) read low on context_relevance all the same."""
    note = metric_explanation("context_relevance").scale_note
    assert "Reads low by design" in md_row(demo.md, "context_relevance")
    low, high, median = (float(v) for v in re.search(r"read (\S+)-(\S+), median (\S+?)\)", note).groups())  # type: ignore[union-attr]
    frame = demo.scores()
    gold_retrieved = [
        set(g) <= set(c) for g, c in zip(frame["reference_context_ids"], frame["context_ids"], strict=True)
    ]
    holding = frame.loc[gold_retrieved, "context_relevance"].astype(float)
    assert len(holding) >= 10
    assert holding.min() == pytest.approx(low, abs=0.01) and holding.max() == pytest.approx(high, abs=0.01)
    assert holding.median() == pytest.approx(median, abs=0.01)


def test_a_metric_without_a_definition_still_renders(tmp_path: Path) -> None:
    class TeamMetric(Metric):
        name: ClassVar[str] = "team_metric"

    frame = pd.DataFrame(
        {
            "question": ["Q1?", "Q2?", "Q3?"],
            "answer": ["A1", "A2", "A3"],
            "team_metric": [1.0, 0.5, 0.0],
            "elsewhere_metric": [0.2, 0.4, 0.9],
        }
    )
    entry = {"mean": 0.5, "ci_low": 0.0, "ci_high": 1.0, "rows_scored": 3, "rows_failed": 0}
    document = {"rows": 3, "metrics": {"team_metric": entry, "elsewhere_metric": entry}}
    register_metric(TeamMetric)
    try:
        md, html = write_run_report(tmp_path / "report", frame, document, {}, {})
    finally:
        unregister_metric("team_metric")
    for name in ("team_metric", "elsewhere_metric"):  # registered without a definition; not registered here
        assert NO_DEFINITION in md_row(md.read_text(), name)
        assert NO_DEFINITION in html_row(html.read_text(), name)


def test_every_id_is_printed_with_what_it_is_for(demo: Demo) -> None:
    fingerprint = demo.summary["testset"]["fingerprint"]
    settings = demo.summary["scoring"]["judge_settings"]
    md, html = demo.md, demo.html
    assert md.splitlines()[2].endswith(f"test set fingerprint {fingerprint} ({TESTSET_ID.short}; see How this "
                                       "run was made).")  # fmt: skip
    assert f"test set fingerprint {fingerprint}: {markdown_inline(TESTSET_ID.meaning)}" in md
    assert f"judge settings id {settings}: {markdown_inline(JUDGE_SETTINGS_ID.meaning)}" in md
    assert f"test set fingerprint <code>{fingerprint}</code>" in html and str(escape(TESTSET_ID.meaning)) in html
    assert f"judge settings id <code>{settings}</code>" in html and str(escape(JUDGE_SETTINGS_ID.meaning)) in html
    for text in (md, SVG.sub("", html), demo.printed):  # no other bare hash, on the page or the console
        for found in HASH.finditer(text):
            before = text[max(0, found.start() - 30) : found.start()]
            assert "fingerprint" in before or "settings id" in before, before + found.group(0)


def test_the_line_of_the_rows_to_look_at_says_how_it_was_drawn(demo: Demo) -> None:
    frame = demo.scores()
    median = float(np.median(frame["context_relevance"].astype(float)))
    below = int((frame["context_relevance"].astype(float) < median).sum())  # the report's line is the median
    line = f"{below} rows below {median:.2f} ({median:.2f} = this run's median)"
    assert line in md_row(demo.md, "context_relevance")
    assert str(escape(f"{median:.2f} = this run's median")) in html_row(demo.html, "context_relevance")
    assert float(np.median(frame["faithfulness"].astype(float))) >= 0.95  # at the top: the line is the top band
    assert "the median 1.00 is within 0.05 of the best score 1: the line sits 0.05 under it" in md_row(
        demo.md, "faithfulness"
    )
    assert markdown_inline(ROWS_TO_LOOK_AT) in demo.md and str(escape(ROWS_TO_LOOK_AT)) in demo.html


def labels_for(scores: Path, rows: int) -> list[dict]:
    """A labeller who calls a row's contexts relevant when they hold the reference answer (every gold chunk)."""
    return [
        {
            "sample_id": row["sample_id"],
            "labeller": "ana",
            "context_relevance": float(set(row["reference_context_ids"]) <= set(row["context_ids"])),
            "answer_id": answer_id(row),
        }
        for row in read_jsonl(scores)[:rows]
    ]


def ppi_line(printed: str, metric: str) -> str:
    block = printed.split("prediction-powered means (judge means corrected by human labels):")[1]
    [line] = [line for line in block.splitlines() if line.startswith(metric + " ")]
    return line


@pytest.mark.parametrize("command", ["evaluate", "run"])
def test_labels_print_the_prediction_powered_means_and_what_they_correct(
    demo: Demo, tmp_path: Path, command: str
) -> None:
    labels = write_labels(labels_for(demo.run / "scores.jsonl", 12), tmp_path / "labels.jsonl")
    if command == "evaluate":
        output = tmp_path / "scored" / "scores.jsonl"
        args = ["evaluate", "--input", str(demo.run / "answers.jsonl"), "--output", str(output)]
    else:
        output = tmp_path / "again" / "scores.jsonl"
        args = ["run", "--testset", str(demo.run / "testset.jsonl"), "--out", str(output.parent)]
    printed = cli(*args, "--labels", str(labels))
    ppi = json.loads((output.parent / "summary.json").read_text())["metrics"]["context_relevance"]["ppi"]
    assert ppi["n_labels"] == 12 and ppi["judge_bias"] < 0  # people call more contexts relevant than the judge
    line = ppi_line(printed, "context_relevance")
    assert f" {ppi['mean']:.3f} " in line and f"{ppi['judge_bias']:+.3f}" in line and " 12 " in line
    assert "faithfulness " not in printed.split("prediction-powered means")[1]  # no labels for it
    assert PPI_CORRECTS in printed
    report_md = (output.parent / "report.md").read_text()
    assert markdown_inline(PPI_CORRECTS) in report_md.split("## Judge means corrected by human labels")[1]
    assert str(escape(PPI_CORRECTS)) in (output.parent / "report.html").read_text()


def test_compare_defines_each_metric_and_labels_the_settings_id(demo: Demo, tmp_path: Path) -> None:
    ragtest.compare(demo.run / "scores.jsonl", demo.run / "scores.jsonl", out_dir=tmp_path / "cmp")
    md, html = (tmp_path / "cmp" / "compare.md").read_text(), (tmp_path / "cmp" / "compare.html").read_text()
    for name in demo.summary["metrics"]:
        definition = metric_explanation(name).definition
        assert markdown_inline(definition) in md_row(md, name)
        assert str(escape(definition)) in html_row(html, name)
    settings = demo.summary["scoring"]["judge_settings"]
    assert f"judge settings id <code>{settings}</code>" in html and str(escape(JUDGE_SETTINGS_ID.meaning)) in html


def llm_args(server: OpenAIStubServer, answers: Path, output: Path, model: str) -> list[str]:
    return [
        "evaluate", "--input", str(answers), "--output", str(output), "--metrics", "context_relevance",
        "--judge", "llm", "--llm", f"openai:{model}", "--llm-base-url", server.url, "--no-cache",
    ]  # fmt: skip


def test_cost_na_names_prices_in_the_usage_and_the_dry_run(
    demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGTEST_PRICES", raising=False)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(row) + "\n" for row in read_jsonl(demo.run / "answers.jsonl")[:2]))
    note = "cost=n/a: no price is known for openai:team-model; give one with --prices FILE (or RAGTEST_PRICES=FILE)"
    with OpenAIStubServer(responder=PlausibleResponder(), lifetime_s=120) as server:
        args = llm_args(server, answers, tmp_path / "llm" / "scores.jsonl", "team-model")
        used = cli(*args)
        planned = cli(*args, "--dry-run")
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"team-model": [1.0, 2.0]}))
        priced = cli(*args, "--prices", str(prices))
    assert re.search(r"^\s+total .*cost=n/a$", used, re.MULTILINE) and note in used
    assert re.search(r"^\s+total .*cost=n/a$", planned, re.MULTILINE) and note in planned
    assert '{"openai:team-model": [0.5, 1.5]}' in used
    assert "cost=n/a" not in priced and re.search(r"^\s+total .*cost=\$[0-9.]+", priced, re.MULTILINE)
