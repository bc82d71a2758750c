"""A change of markup alone (HTTPX's Markdown pages restyled: headings, bullets, wrapping, emphasis, blank lines)
keeps the test set: at least 90% of its questions unchanged, none updated or retired for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtest.refresh.matching import KEPT, MOVED
from tests.app.refresh_helpers import changelog, generate, read, reformat_markdown, refresh


@pytest.mark.slow
def test_a_markup_only_change_keeps_the_questions(test_data: Path, tmp_path: Path) -> None:
    shipped = test_data / "docs" / "httpx"
    for version in ("old", "new"):
        for page in sorted(shipped.rglob("*.md")):
            text = page.read_text(encoding="utf-8")
            target = tmp_path / version / page.relative_to(shipped)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(reformat_markdown(text) if version == "new" else text, encoding="utf-8")
    assert (tmp_path / "old" / "async.md").read_text() != (tmp_path / "new" / "async.md").read_text()
    old = generate(tmp_path / "old", tmp_path / "out" / "old.jsonl", 12)
    assert refresh(tmp_path / "out" / "old.jsonl", tmp_path / "new", tmp_path / "out" / "new.jsonl") == 0
    new = {row["sample_id"]: row for row in read(tmp_path / "out" / "new.jsonl")}
    unchanged = [
        row
        for row in old
        if row["sample_id"] in new
        and new[row["sample_id"]]["refresh_status"] in (KEPT, MOVED)
        and (new[row["sample_id"]]["question"], new[row["sample_id"]]["ground_truth"])
        == (row["question"], row["ground_truth"])
    ]
    assert len(unchanged) >= 0.9 * len(old)
    counts = changelog(tmp_path / "out" / "new.jsonl")["counts"]
    assert counts["updated"] == counts["retired"] == 0
