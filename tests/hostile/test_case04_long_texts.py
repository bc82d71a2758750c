"""Case 4: a 5 MB answer no longer hangs `evaluate`. Sentence splitting is linear (a long line is split piece by
piece; lines of normal prose go to pysbd whole, so their sentences do not change), and each text is scored on at
most --max-field-chars characters (default 100,000), which the row's reasons, the summary and the console say.
Times for 500 KB, 1 MB and 5 MB: `python -m bench.long_text_bench`."""

from __future__ import annotations

import json
from pathlib import Path

import pysbd
import pytest

from evaluation.sample import DEFAULT_MAX_FIELD_CHARS
from ragtest.cli import main
from ragtest.outputs import OutputPaths
from ragtest_core.datasets import read_jsonl
from ragtest_core.text import LONG_LINE, PIECE, line_pieces, split_sentences


def one_line_of_prose(wiki_dir: Path, size: int) -> str:
    text = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in sorted(wiki_dir.glob("*.txt")))
    return (text * (size // len(text) + 1))[:size]


def test_long_lines_are_cut_into_bounded_pieces_that_lose_nothing(wiki_dir: Path) -> None:
    line = one_line_of_prose(wiki_dir, 300_000)
    pieces = line_pieces(line)
    assert "".join(pieces) == line
    assert max(len(p) for p in pieces) <= PIECE and min(len(p) for p in pieces[:-1]) >= PIECE // 2
    ends = [p.rstrip()[-1] for p in pieces[:-1]]
    assert sum(end in ".!?" for end in ends) / len(ends) > 0.9  # pieces end where sentences end
    sentences = split_sentences(line)
    assert "".join(sentences).replace(" ", "") == line.replace(" ", "")  # no text lost or doubled


def test_normal_prose_splits_exactly_as_pysbd(test_data: Path) -> None:
    """Every line of the shared data is shorter than LONG_LINE: each goes to pysbd whole, as before."""
    segmenter = pysbd.Segmenter(language="en", clean=False)
    texts = [row["answer"] for row in map(json.loads, (test_data / "wikieval" / "wikieval.jsonl").open())]
    texts += [
        c for row in map(json.loads, (test_data / "fiqa" / "fiqa.jsonl").open()) for c in row["retrieved_contexts"]
    ]
    for text in texts:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        assert all(len(line) <= LONG_LINE for line in lines)
        expected = [s.strip() for line in lines for s in segmenter.segment(line) if s.strip()]
        assert split_sentences(text, "en") == expected


@pytest.mark.timeout(600)
def test_a_5mb_answer_is_scored_on_its_first_characters_and_says_so(
    wiki_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_answer = one_line_of_prose(wiki_dir, 5_000_000)
    normal = {
        "question": "What is a brown bear?",
        "answer": "The brown bear is a large bear native to Eurasia and North America.",
        "contexts": ["The brown bear is a large bear native to Eurasia and North America."],
        "ground_truth": "A large bear native to Eurasia and North America.",
    }
    source = tmp_path / "long.jsonl"
    source.write_text(json.dumps({**normal, "answer": long_answer}) + "\n" + json.dumps(normal) + "\n")
    output = tmp_path / "scores.jsonl"
    assert main(["evaluate", "--quiet", "--input", str(source), "--output", str(output)]) == 0
    captured = capsys.readouterr()
    assert "1 row(s) had a text longer than 100,000 characters (answer (1))" in captured.err
    long_row, normal_row = read_jsonl(output)
    note = f"scored on the first {DEFAULT_MAX_FIELD_CHARS:,} characters of: answer (5,000,000 characters)"
    assert all(note in long_row[f"{m}_reason"] for m in ("faithfulness", "answer_relevancy", "context_recall"))
    assert not any("scored on the first" in str(value) for value in normal_row.values())
    assert long_row["faithfulness"] is not None and long_row["answer"] == long_answer  # the row keeps its answer
    summary = json.loads(OutputPaths.beside(output).summary.read_text())
    assert summary["fields_cut"] == {"limit": 100_000, "rows": 1, "fields": {"answer": 1}, "row_numbers": [1]}
    assert summary["scoring"]["max_field_chars"] == 100_000
    alone = tmp_path / "alone.jsonl"
    alone.write_text(json.dumps(normal) + "\n")
    assert main(["evaluate", "--quiet", "--input", str(alone), "--output", str(tmp_path / "alone-scores.jsonl")]) == 0
    assert read_jsonl(tmp_path / "alone-scores.jsonl")[0] == normal_row  # the long row changed nothing else
