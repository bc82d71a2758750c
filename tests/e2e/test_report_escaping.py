"""Every document-derived string in the reports is escaped (Jinja2 autoescape): a source document that carries
`<script>` and a file name with markup, run end to end offline, then compared with a changed copy."""

from __future__ import annotations

import json
from pathlib import Path

import ragtest
from ragtest.cli import main
from ragtest_core.datasets import read_jsonl

SCRIPT = '<script>alert("ragtest")</script>'


def test_script_in_a_source_document_is_escaped(wiki_dir: Path, tmp_path: Path) -> None:
    paragraphs = [p for p in (wiki_dir / "Polar_bear.txt").read_text(encoding="utf-8").split("\n") if len(p) > 300]
    docs = tmp_path / "docs"
    docs.mkdir()
    hostile = docs / "bears<b>&co.txt"
    hostile.write_text("\n\n".join(f"{p} The keeper wrote {SCRIPT} on the sign." for p in paragraphs[:24]))
    run_dir = tmp_path / "run"
    args = ["run", "--quiet", "--source", str(docs), "--size", "4", "--seed", "2", "--out", str(run_dir)]
    assert main([*args, "--metrics", "faithfulness,context_recall,answer_relevancy"]) == 0
    rows = read_jsonl(run_dir / "scores.jsonl")
    assert any(SCRIPT in c for row in rows for c in row["contexts"])  # the payload reached the report's inputs

    changed = tmp_path / "changed" / "scores.jsonl"
    changed.parent.mkdir()
    for row in rows:  # a second run where every answer_relevancy moved, so the changed rows carry the contexts
        row["answer_relevancy"] = 0.0 if row["answer_relevancy"] else 1.0
    changed.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary = json.loads((run_dir / "summary.json").read_text())
    changed.with_name("summary.json").write_text(json.dumps(summary))
    ragtest.compare(run_dir, changed, out_dir=tmp_path / "cmp")

    for page in (run_dir / "report.html", tmp_path / "cmp" / "compare.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script" not in html.lower() and "<b>&co" not in html, page
        assert "&lt;script&gt;alert(&#34;ragtest&#34;)&lt;/script&gt;" in html, page
        assert "bears&lt;b&gt;&amp;co.txt" in html, page
