"""hit_rate / MRR / NDCG for a RAG whose chunk ids are not ragtest's: contexts matched to gold chunks by text,
on real Wikipedia paragraphs chunked two ways."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from evaluation.engine import evaluate_dataset
from evaluation.metrics.gold_mapping import EXACT, OVERLAP, map_by_text, overlap


@pytest.fixture(scope="module")
def paragraphs(wiki_dir: Path) -> list[str]:
    text = (wiki_dir / "Brown_bear.txt").read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n") if len(p.split()) > 60]


def score(rows: list[dict]) -> pd.DataFrame:
    return evaluate_dataset(pd.DataFrame(rows), metrics=["hit_rate", "mrr", "ndcg"], show_progress=False).frame


def test_other_ids_same_text_is_an_exact_match(paragraphs: list[str]) -> None:
    gold = paragraphs[3]
    row = {
        "contexts": [paragraphs[10], gold],
        "context_ids": ["their-17", "their-4"],
        "reference_contexts": [gold],
        "reference_context_ids": ["ragtest-abc"],
    }
    out = score([row])
    assert out.loc[0, "hit_rate"] == 1.0 and out.loc[0, "mrr"] == 0.5
    assert f"matched by {EXACT}" in out.loc[0, "mrr_reason"]


def test_another_chunker_matches_by_overlap(paragraphs: list[str]) -> None:
    gold = paragraphs[5]
    words = gold.split()
    bigger = f"{paragraphs[4]} {gold}"  # their chunk contains the gold chunk
    inside = " ".join(words[: int(len(words) * 0.8)])  # their chunk is most of it
    straddling = " ".join(words[len(words) // 2 :]) + " " + paragraphs[6]  # half of it and the next paragraph
    assert overlap(bigger, gold) == 1.0 and overlap(inside, gold) == 1.0 and overlap(straddling, gold) < 0.7
    mapping = map_by_text([paragraphs[12], straddling, bigger], [gold])
    assert mapping.retrieved == ["retrieved#1", "retrieved#2", "gold#1"] and mapping.method == OVERLAP
    rows = [
        {"contexts": [paragraphs[12], bigger], "context_ids": ["x1", "x2"], "reference_contexts": [gold]},
        {"contexts": [inside], "context_ids": ["y"], "reference_contexts": [gold]},
        {"contexts": [paragraphs[12], paragraphs[13]], "context_ids": ["z1", "z2"], "reference_contexts": [gold]},
    ]
    for row in rows:
        row["reference_context_ids"] = ["ragtest-gold"]
    out = score(rows)
    assert out["mrr"].tolist() == [0.5, 1.0, 0.0]
    assert (
        "text overlap" in out.loc[0, "hit_rate_reason"]
        and "ids are not the test set's" in out.loc[0, "hit_rate_reason"]
    )
    assert "no retrieved text matches a gold chunk" in out.loc[2, "ndcg_reason"]


def test_matching_ids_are_used_as_before(paragraphs: list[str]) -> None:
    row = {
        "contexts": [paragraphs[1], paragraphs[2]],
        "context_ids": ["a", "g"],
        "reference_contexts": [paragraphs[1]],  # the text says rank 1, the ids say rank 2: ids win
        "reference_context_ids": ["g"],
    }
    out = score([row])
    assert out.loc[0, "mrr"] == 0.5 and out.loc[0, "mrr_reason"] == "reciprocal rank: gold ids at ranks [2]"


def test_texts_alone_are_enough(paragraphs: list[str]) -> None:
    frame = pd.DataFrame([{"contexts": [paragraphs[7]], "reference_contexts": [paragraphs[7]]}])
    out = evaluate_dataset(frame, metrics=["hit_rate"], show_progress=False).frame
    assert out.loc[0, "hit_rate"] == 1.0


def test_the_mapped_gold_ids_are_written_for_id_based_metrics_elsewhere(paragraphs: list[str], tmp_path: Path) -> None:
    from ragtest.outputs import write_rows
    from ragtest_core.datasets import read_jsonl

    gold = paragraphs[3]
    row = {
        "question": "Q?",
        "answer": "A.",
        "contexts": [paragraphs[10], gold],
        "context_ids": ["their-17", "their-4"],
        "reference_contexts": [gold],
        "reference_context_ids": ["ragtest-abc"],
    }
    scored = score([row])
    assert scored.loc[0, "mapped_context_ids"] == ["their-17", "ragtest-abc"]
    [exported] = read_jsonl(write_rows(scored, tmp_path / "scores.jsonl", columns="ragas"))
    assert exported["retrieved_context_ids"] == ["their-17", "ragtest-abc"]  # what ragas' ID-based metrics read
    assert exported["rag_context_ids"] == ["their-17", "their-4"] and exported["reference_context_ids"] == [
        "ragtest-abc"
    ]


def test_chunks_sharing_one_gold_chunk_are_named_as_such(paragraphs: list[str]) -> None:
    """Another chunker cut each gold chunk in two: the RAG's ids are distinct, so the reason speaks of retrieved
    chunks matching one gold chunk, never of repeated ids; each gold chunk counts once, at its first rank."""
    halves = []
    for gold in (paragraphs[5], paragraphs[8]):
        words = gold.split()
        halves.append((" ".join(words[: len(words) * 3 // 5]), " ".join(words[len(words) * 2 // 5 :])))
    one = {
        "contexts": [paragraphs[12], *halves[0]],
        "context_ids": ["x1", "x2", "x3"],
        "reference_contexts": [paragraphs[5]],
    }
    two = {
        "contexts": [*halves[0], *halves[1]],
        "context_ids": ["y1", "y2", "y3", "y4"],
        "reference_contexts": [paragraphs[5], paragraphs[8]],
    }
    rows = [one, two]
    for row in rows:
        row["reference_context_ids"] = ["ragtest-gold"]
    out = score(rows)
    assert out["mrr"].tolist() == [0.5, 1.0] and out["hit_rate"].tolist() == [1.0, 1.0]  # scores as before
    assert out.loc[0, "ndcg"] == pytest.approx(1 / math.log2(3))  # the gold chunk once, at rank 2
    reason = out.loc[0, "hit_rate_reason"]
    assert reason.startswith("hit@2 (all retrieved): gold chunks at ranks [2] (matched by text overlap")
    assert "(2 retrieved chunks match the same gold chunk: counted once, at the first rank)" in reason
    assert "repeated id" not in reason
    assert "(4 retrieved chunks match 2 gold chunks between them" in out.loc[1, "mrr_reason"]
