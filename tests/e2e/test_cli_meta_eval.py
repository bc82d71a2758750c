"""`ragtest meta-eval` prints the WikiEval agreement table; generation flags reach the generator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl


def test_meta_eval_prints_the_paper_table(test_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "--quiet",
            "meta-eval",
            "--wikieval",
            str(test_data / "wikieval" / "wikieval.jsonl"),
            "--limit",
            "6",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "faithfulness" in out and "answer relevance" in out and "context relevance" in out
    assert "RAGAS (gpt-3.5)" in out and "ragtest (local judge)" in out


def test_meta_eval_llm_judge_needs_an_llm(test_data: Path, tmp_path: Path) -> None:
    assert (
        main(
            [
                "--quiet",
                "meta-eval",
                "--wikieval",
                str(test_data / "wikieval" / "wikieval.jsonl"),
                "--judge",
                "llm",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )


def test_generation_flags_reach_the_generator(wiki_dir: Path, tmp_path: Path) -> None:
    output = tmp_path / "t.jsonl"
    code = main(
        [
            "--quiet",
            "generate",
            "--topic",
            "Python (programming language)",
            "--wiki-cache",
            str(wiki_dir),
            "--offline",
            "--size",
            "6",
            "--seed",
            "5",
            "--question-types",
            "simple=0.5,multi_context=0.5",
            "--dedup-threshold",
            "0.85",
            "--output",
            str(output),
        ]
    )
    assert code == 0
    rows = read_jsonl(output)
    assert len(rows) == 6
    assert {row["question_type"] for row in rows} <= {"simple", "multi_context"}
    manifest = json.loads((tmp_path / "t.manifest.json").read_text())
    # the mix reached the generator; the offline writer writes a multi_context question only as a bridge or a
    # comparison, and says so when the article gives fewer
    assert manifest["stats"]["generation"]["requested_types"] == {"simple": 3, "multi_context": 3}
    assert manifest["config"]["generation"]["dedup_threshold"] == 0.85
    assert manifest["config"]["generation"]["question_types"] == "simple=0.5,multi_context=0.5"
    assert manifest["stats"]["generation"]["coverage"] == {"Python (programming language)": 6}
