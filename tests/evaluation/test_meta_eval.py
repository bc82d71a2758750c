"""Meta-evaluation on WikiEval: the table, the cleaning, and (slow) the local judge's validity targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.meta_eval import clean, format_table, load_wikieval, run_wikieval
from ragtest_core.embeddings import Embedder


def test_wikieval_cleaning(test_data: Path) -> None:
    rows = load_wikieval(test_data / "wikieval" / "wikieval.jsonl")
    assert len(rows) == 50
    assert not any(r["question"].startswith("Question:") or r["answer"].startswith("Answer:") for r in rows)
    assert clean("He said 'no' today.'") == "He said 'no' today."
    assert clean("Answer: it's fine", "Answer:") == "it's fine"


def test_meta_eval_table_on_the_first_rows(test_data: Path, embedder: Embedder) -> None:
    table = run_wikieval(test_data / "wikieval" / "wikieval.jsonl", embedder=embedder, limit=12)
    text = format_table(table)
    assert "ragtest (local judge)" in text and "RAGAS (gpt-3.5)" in text and "GPT Ranking" in text
    assert table.rows == 12 and (table.agreement["faithfulness"] or 0) >= 0.9
    assert set(table.agreement) == {"faithfulness", "answer relevance", "context relevance"}


@pytest.mark.slow
def test_wikieval_validity_targets(test_data: Path) -> None:
    """Each side of a pairing scored in its own run. Faithfulness and context relevance meet the local targets
    (0.95, 0.80); answer relevance misses its 0.78 (0.70: WikiEval's poor answers restate the question; see the
    README's validity table), so the table says "targets missed: answer relevance" and nothing else."""
    table = run_wikieval(test_data / "wikieval" / "wikieval.jsonl")
    out = format_table(table)
    print(out)
    assert "targets missed: answer relevance" in out
    assert (table.agreement["faithfulness"] or 0) >= 0.95 and (table.agreement["context relevance"] or 0) >= 0.80
    assert (table.agreement["answer relevance"] or 0) >= 0.6
