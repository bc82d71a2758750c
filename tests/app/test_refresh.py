"""`ragtest refresh` on real documentation history and on a hand-edited Wikipedia article: rows kept, moved, updated
or retired by content, the set filled back to its size, the changelog, review decisions and labels carried over,
and a dry run that writes nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import testgen
from evaluation.labelled import match_labels
from ragtest.cli import main
from ragtest.refresh.matching import KEPT, MOVED, NEW, RETIRED, UPDATED, norm
from ragtest.review.testset_review import TestsetReview, decisions_path, reviewed_path
from ragtest_core.labels import answer_id
from testgen.files import read_files
from tests.app.refresh_helpers import changelog, copy_pages, edit_sentence, evidence, generate, read, refresh

pytestmark = pytest.mark.slow  # each pair generates a set and refreshes it (tens of seconds on 2 cores)

FLASK_PAGES = ["signals.rst", "templating.rst", "views.rst", "debugging.rst", "installation.rst", "shell.rst"]


@dataclass
class Pair:
    old_rows: list[dict[str, Any]]
    new_rows: list[dict[str, Any]]
    old_set: Path
    new_set: Path
    new_source: Path
    #: The hand-edited pair's rows (indexes): the one whose figure changed, the one whose evidence went, the others.
    figure: int = -1
    gone: int = -1
    others: tuple[int, ...] = ()

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {row["sample_id"]: row for row in self.new_rows}


@pytest.fixture(scope="module")
def flask(test_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Pair:
    """Flask 3.0.0's pages (those that changed since, from tests/data/docs/flask-3.0.0) against the shipped ones."""
    root = tmp_path_factory.mktemp("flask")
    shipped, older = test_data / "docs" / "flask", test_data / "docs" / "flask-3.0.0"
    new = copy_pages(shipped, root / "new", FLASK_PAGES)
    old = copy_pages(shipped, root / "old", [p for p in FLASK_PAGES if not (older / p).is_file()])
    copy_pages(older, old, [p for p in FLASK_PAGES if (older / p).is_file()])
    old_rows = generate(old, root / "out" / "old.jsonl", 8)
    assert refresh(root / "out" / "old.jsonl", new, root / "out" / "new.jsonl") == 0
    return Pair(old_rows, read(root / "out" / "new.jsonl"), root / "out" / "old.jsonl", root / "out" / "new.jsonl", new)


def test_rows_on_byte_identical_pages_stay_kept_with_their_question(flask: Pair, test_data: Path) -> None:
    changed = {p for p in FLASK_PAGES if (test_data / "docs" / "flask-3.0.0" / p).is_file()}
    new = flask.by_id()
    on_same = [row for row in flask.old_rows if Path(row["source"]).name not in changed]
    assert on_same, "the pair has rows on unchanged pages"
    for row in on_same:
        assert new[row["sample_id"]]["refresh_status"] == KEPT
        assert new[row["sample_id"]]["question"] == row["question"]


def test_kept_and_moved_rows_stand_on_evidence_that_is_in_the_new_corpus(flask: Pair) -> None:
    chunks = {c.chunk_id: c.text for c in testgen.chunk_documents(read_files(flask.new_source).documents)}
    old = {row["sample_id"]: row for row in flask.old_rows}
    for row in flask.new_rows:
        if row["refresh_status"] not in (KEPT, MOVED):
            continue
        assert all(cid in chunks for cid in row["reference_context_ids"])
        gold = " ".join(norm(chunks[cid]) for cid in row["reference_context_ids"])
        assert all(sentence in gold for sentence in evidence(old[row["sample_id"]]))
        assert row["ground_truth"] == old[row["sample_id"]]["ground_truth"]


def test_the_set_keeps_its_size_and_the_changelog_counts_every_row(flask: Pair) -> None:
    assert len(flask.new_rows) == 8
    log = changelog(flask.new_set)
    counts = log["counts"]
    assert counts[KEPT] + counts[MOVED] + counts[UPDATED] + counts[RETIRED] == len(flask.old_rows)
    assert counts[NEW] == len(flask.new_rows) - counts[KEPT] - counts[MOVED] - counts[UPDATED]
    assert sum(sum(page.values()) for page in log["by_page"].values()) == len(flask.old_rows) + counts[NEW]
    assert all(entry["reason"] for entry in log["retired"])
    markdown = flask.new_set.with_name("new.changelog.md").read_text(encoding="utf-8")
    assert "## By page" in markdown and "signals.rst" in markdown
    manifest = json.loads(flask.new_set.with_name("new.manifest.json").read_text(encoding="utf-8"))
    assert manifest["stats"]["refreshed_from"]["testset"] == str(flask.old_set)


@pytest.fixture(scope="module")
def bear(wiki_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Pair:
    """A Wikipedia article edited by hand: one row's evidence deleted, one row's figure changed, the rest as it was;
    review decisions made on the old set first."""
    root = tmp_path_factory.mktemp("bear")
    old = copy_pages(wiki_dir, root / "old", ["Brown_bear.txt"])
    old_set = root / "out" / "old.jsonl"
    rows = generate(old, old_set, 6)
    text = (old / "Brown_bear.txt").read_text(encoding="utf-8")
    figure = next(i for i, row in enumerate(rows) if re.search(r"\d", row["answer_span"] or ""))
    gone = next(i for i in range(len(rows)) if i != figure)
    for index, change in ((figure, _raise_figures), (gone, lambda sentence: "")):
        sentence = evidence(rows[index])[0]
        text = edit_sentence(text, sentence, change(sentence))
    new = root / "new"
    new.mkdir()
    (new / "Brown_bear.txt").write_text(text, encoding="utf-8")
    review = TestsetReview(old_set)
    others = [i for i in range(len(rows)) if i not in (figure, gone)]
    review.decide(others[0], "accepted", reviewer="ana")
    review.decide(others[1], "edited", reviewer="ana", question=rows[others[1]]["question"] + " (edited)")
    review.decide(others[2], "rejected", reviewer="ana", reason="too easy")
    review.decide(figure, "accepted", reviewer="ana")
    assert refresh(old_set, new, root / "out" / "new.jsonl") == 0
    return Pair(
        rows, read(root / "out" / "new.jsonl"), old_set, root / "out" / "new.jsonl", new, figure, gone, tuple(others)
    )


def _raise_figures(sentence: str) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group(0)) + 2), sentence)


def test_a_row_whose_evidence_is_gone_is_retired_with_its_reason(bear: Pair) -> None:
    gone = bear.old_rows[bear.gone]
    assert gone["sample_id"] not in bear.by_id()
    retired = {e["sample_id"]: e for e in changelog(bear.new_set)["retired"]}
    assert "evidence gone" in retired[gone["sample_id"]]["reason"]


def test_a_changed_figure_is_updated_or_retired_never_kept(bear: Pair) -> None:
    row = bear.old_rows[bear.figure]
    new = bear.by_id().get(row["sample_id"])
    if new is None:
        assert row["sample_id"] in {e["sample_id"] for e in changelog(bear.new_set)["retired"]}
        return
    assert new["refresh_status"] == UPDATED
    assert new["question"] == row["question"] and new["ground_truth"] != row["ground_truth"]
    assert _raise_figures(row["answer_span"]) in new["ground_truth"]
    updated = {e["sample_id"]: e for e in changelog(bear.new_set)["updated"]}[row["sample_id"]]
    assert (updated["old_reference"], updated["new_reference"]) == (row["ground_truth"], new["ground_truth"])


def test_untouched_rows_are_kept_and_the_set_is_filled_back_with_new_rows(bear: Pair) -> None:
    new = bear.by_id()
    for index in bear.others:
        row = bear.old_rows[index]
        assert new[row["sample_id"]]["refresh_status"] == KEPT
        assert new[row["sample_id"]]["question"] == row["question"]
    assert len(bear.new_rows) == 6
    assert [r["refresh_status"] for r in bear.new_rows].count(NEW) == 6 - len(bear.others) - (
        1 if bear.old_rows[bear.figure]["sample_id"] in new else 0
    )
    assert all(r["refresh_status"] != NEW for r in bear.new_rows[: 6 - changelog(bear.new_set)["counts"][NEW]])


def test_review_decisions_carry_to_kept_rows_and_updated_rows_wait_in_the_queue(bear: Pair) -> None:
    lines = decisions_path(bear.new_set).read_text(encoding="utf-8").splitlines()
    carried = {json.loads(line)["sample_id"]: json.loads(line) for line in lines}
    others = [bear.old_rows[i]["sample_id"] for i in bear.others[:3]]
    assert [carried[s]["decision"] for s in others] == ["accepted", "edited", "rejected"]
    assert bear.old_rows[bear.figure]["sample_id"] not in carried
    reviewed = {row["sample_id"]: row for row in read(reviewed_path(bear.new_set))}
    assert others[2] not in reviewed  # rejected
    assert reviewed[others[1]]["question"].endswith("(edited)")
    new = TestsetReview(bear.new_set)
    statuses = {key: new.status(i) for i, key in enumerate(new.keys)}
    assert all(statuses[r["sample_id"]] == "pending" for r in bear.new_rows if r["refresh_status"] in (UPDATED, NEW))


def test_labels_stay_with_the_rows_they_were_made_on(bear: Pair) -> None:
    """A label made on an old run's row applies to the same row of a run on the refreshed set (same question,
    reference and answer); on an updated row, whose reference changed, it is stale."""

    def answered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**row, "answer": f"the RAG's answer to {row['sample_id']}", "contexts": ["a context"], "faithfulness": 0.5}
            for row in rows
        ]

    labels = [
        {"sample_id": row["sample_id"], "labeller": "ana", "faithfulness": 1.0, "answer_id": answer_id(row)}
        for row in answered(bear.old_rows)
    ]
    new_rows = [row for row in bear.new_rows if row["refresh_status"] != NEW]
    new = pd.DataFrame(answered(new_rows))
    matched = match_labels(new, labels, ["faithfulness"])["faithfulness"]
    kept = {r["sample_id"] for r in new_rows if r["refresh_status"] in (KEPT, MOVED)}
    updated = {r["sample_id"] for r in new_rows if r["refresh_status"] == UPDATED}
    assert set(matched.sample_ids) == kept
    assert matched.stale == len(updated)
    assert matched.unmatched == len(bear.old_rows) - len(new_rows)


def test_a_dry_run_says_what_would_change_and_writes_nothing(
    bear: Pair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in bear.old_set.parent.iterdir())
    assert refresh(bear.old_set, bear.new_source, tmp_path / "dry" / "new.jsonl", "--dry-run") == 0
    out = capsys.readouterr().out
    assert re.search(r"would keep \d+, move \d+, ask the writer again for \d+, retire 1", out)
    assert not (tmp_path / "dry").exists()
    assert sorted(p.name for p in bear.old_set.parent.iterdir()) == before


def test_compare_of_runs_on_two_versions_pairs_the_shared_rows(bear: Pair, tmp_path: Path) -> None:
    for name, rows in (("v1", bear.old_rows), ("v2", bear.new_rows)):
        answers = tmp_path / name / "answers.jsonl"
        answers.parent.mkdir()
        answered = [{**row, "answer": row["ground_truth"], "contexts": row["reference_contexts"]} for row in rows]
        answers.write_text("".join(json.dumps(row) + "\n" for row in answered), encoding="utf-8")
        scores = str(tmp_path / name / "scores.jsonl")
        args = ["--quiet", "evaluate", "--input", str(answers), "--output", scores, "--metrics", "faithfulness"]
        assert main(args) == 0
    out = tmp_path / "compare"
    assert main(["compare", str(tmp_path / "v1"), str(tmp_path / "v2"), "--out", str(out)]) == 0
    data = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    counts = changelog(bear.new_set)["counts"]
    assert data["matched"] == data["versions"]["shared"] == counts[KEPT] + counts[MOVED]
    assert data["versions"]["updated"] == counts[UPDATED]
    assert (data["versions"]["only_base"], data["versions"]["only_new"]) == (counts[RETIRED], counts[NEW])


def test_a_refresh_that_falls_short_keeps_its_work_as_generate_does(bear: Pair, tmp_path: Path) -> None:
    text = (bear.new_source / "Brown_bear.txt").read_text(encoding="utf-8")
    short = copy_pages(bear.new_source, tmp_path / "short", [])
    (short / "Brown_bear.txt").write_text(text[:1500], encoding="utf-8")
    output = tmp_path / "out" / "new.jsonl"
    assert refresh(bear.old_set, short, output) == 2  # short of the old size: written and marked partial
    manifest = json.loads(output.with_name("new.manifest.json").read_text(encoding="utf-8"))
    partial = manifest["stats"]["testset_partial"]
    assert partial["made"] == len(read(output)) < partial["asked"] == len(bear.old_rows)
    assert changelog(output)["counts"][RETIRED] > 0
