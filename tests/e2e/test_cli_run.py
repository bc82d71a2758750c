"""End to end: `ragtest run` offline on the real Python article, then the stages one by one and a re-run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl

TOPIC = "Python (programming language)"
METRICS = ("faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall")


def _run(out: Path, wiki_dir: Path, *extra: str) -> int:
    return main(
        [
            "--quiet",
            "run",
            "--topic",
            TOPIC,
            "--wiki-cache",
            str(wiki_dir),
            "--offline",
            "--size",
            "8",
            "--seed",
            "11",
            "--out",
            str(out),
            *extra,
        ]
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, wiki_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("run")
    assert _run(out, wiki_dir) == 0
    return out


def test_run_writes_every_file(run_dir: Path) -> None:
    for name in (
        "testset.jsonl",
        "answers.jsonl",
        "scores.jsonl",
        "summary.json",
        "manifest.json",
        "report.md",
        "report.html",
    ):
        assert (run_dir / name).is_file(), name
    assert not (run_dir / "answers.partial.jsonl").exists()


def test_testset_questions_and_gold_ids(run_dir: Path) -> None:
    rows = read_jsonl(run_dir / "testset.jsonl")
    assert len(rows) == 8
    for row in rows:
        assert row["question"].endswith("?")
        assert row["reference_context_ids"] and row["reference_contexts"]
        assert row["source"] == TOPIC
        assert row["ground_truth"]


def test_scores_are_in_range_or_explained(run_dir: Path) -> None:
    rows = read_jsonl(run_dir / "scores.jsonl")
    assert len(rows) == 8
    for row in rows:
        assert row["answer"] and row["contexts"] and row["answer_error"] is None
        for metric in METRICS:
            value = row[metric]
            assert (value is not None and 0.0 <= value <= 1.0) or row[f"{metric}_reason"], (metric, row)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert set(METRICS) <= set(summary["metrics"])
    for metric in METRICS:
        entry = summary["metrics"][metric]
        assert entry["rows_scored"] + entry["rows_failed"] == 8


def test_run_and_evaluate_write_summary_json_in_one_layout(run_dir: Path, tmp_path: Path) -> None:
    output = tmp_path / "rescored.jsonl"
    assert main(["evaluate", "--quiet", "--input", str(run_dir / "answers.jsonl"), "--output", str(output)]) == 0
    from_run = json.loads((run_dir / "summary.json").read_text())
    from_evaluate = json.loads(output.with_name("rescored.summary.json").read_text())
    assert set(from_run) == set(from_evaluate) >= {"layout", "rows", "metrics", "scoring", "testset", "run"}
    assert from_run["scoring"] == from_evaluate["scoring"] and from_run["testset"] == from_evaluate["testset"]
    for metric in METRICS:
        assert set(from_run["metrics"][metric]) == set(from_evaluate["metrics"][metric])
        assert from_run["metrics"][metric]["mean"] == from_evaluate["metrics"][metric]["mean"]  # rows scored alone
    # the evaluate report knows the adapter and seed from the run's manifest
    assert from_evaluate["run"]["adapter"].startswith("reference RAG") and from_evaluate["run"]["seed"] == 11


def test_manifest_records_config_versions_and_timings(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["seed"] == 11 and manifest["judge"] == "local"
    assert manifest["versions"]["chromadb"] and manifest["versions"]["sentence-transformers"]
    assert {"load_sources", "chunk", "embed", "generate", "answer", "evaluate"} <= set(manifest["timings_s"])
    assert manifest["stats"]["chunks"] > 50 and manifest["llm_usage"] is None


def test_rerun_same_seed_is_identical_and_embeds_nothing(run_dir: Path, wiki_dir: Path) -> None:
    before = (run_dir / "testset.jsonl").read_bytes()
    assert _run(run_dir, wiki_dir) == 0
    assert (run_dir / "testset.jsonl").read_bytes() == before
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["stats"]["chunks_embedded"] == 0


def test_stages_one_by_one(run_dir: Path, tmp_path: Path, wiki_dir: Path) -> None:
    testset = tmp_path / "t.jsonl"
    assert (
        main(
            [
                "--quiet",
                "generate",
                "--topic",
                TOPIC,
                "--wiki-cache",
                str(wiki_dir),
                "--offline",
                "--size",
                "4",
                "--seed",
                "3",
                "--output",
                str(testset),
            ]
        )
        == 0
    )
    answers = tmp_path / "a.jsonl"
    assert main(["--quiet", "answer", "--input", str(testset), "--output", str(answers)]) == 0
    scores = tmp_path / "s.csv"
    assert (
        main(
            [
                "--quiet",
                "evaluate",
                "--input",
                str(answers),
                "--metrics",
                "faithfulness,context_recall",
                "--output",
                str(scores),
            ]
        )
        == 0
    )
    text = scores.read_text()
    assert "faithfulness_reason" in text and "context_recall" in text and "answer_relevancy" not in text


def test_missing_page_fails_cleanly_without_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragtest.cli",
            "generate",
            "--topic",
            "No Such Page Anywhere",
            "--wiki-cache",
            str(tmp_path),
            "--offline",
            "--output",
            str(tmp_path / "t.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "--wiki-cache" in result.stderr and "RAGTEST_WIKI_CACHE" in result.stderr
    assert "Traceback" not in result.stderr
