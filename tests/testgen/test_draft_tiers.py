"""Drafts come in tiers: the offline documentation writer's strategies that read well most often (definitions,
options, FAQ entries, how-to answers naming their means) fill a test set first; defaults and turned sentences join
after `--tier-lookahead` contexts per requested question, or when the roots run out; how-to answers naming no means
come last."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ragtest import make_config
from ragtest.cli import main
from ragtest_core.errors import RagtestError
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.tiers import draft_tier, names_whole_task

PAGES = ("quickstart.rst", "testing.rst", "config.rst", "templating.rst")


def _generate(source: Path, out: Path, size: int, *extra: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    output = out / "testset.jsonl"
    argv = ["--quiet", "generate", "--source", str(source), "--size", str(size), "--offline", *extra]
    assert main([*argv, "--output", str(output)]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    manifest = json.loads(output.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    return rows, manifest["stats"]["generation"]


@pytest.fixture(scope="module")
def flask_pages(tmp_path_factory: pytest.TempPathFactory, test_data: Path) -> Path:
    source = tmp_path_factory.mktemp("flask-pages")
    for page in PAGES:
        (source / page).write_text((test_data / "docs" / "flask" / page).read_text(encoding="utf-8"), "utf-8")
    return source


def test_a_set_the_first_tier_can_fill_has_no_later_tier(
    flask_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four real Flask pages: 12 questions all come from the first tier, though the pages also give defaults and
    turned sentences (which a lookahead of one context per question lets in). No page share here: see
    `test_a_page_past_its_share_gives_more_only_from_the_next_tier`."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    rows, generation = _generate(flask_pages, tmp_path / "first", 12, "--page-share", "1")
    assert len(rows) == 12
    assert generation["accepted_by_tier"] == {"0": 12}
    assert not {"sentence", "default"} & set(generation["accepted_by_strategy"])
    assert sum(1 for row in rows if row["question"].startswith("How do you")) >= 4

    _, eager = _generate(flask_pages, tmp_path / "eager", 12, "--tier-lookahead", "1", "--page-share", "1")
    assert set(eager["accepted_by_tier"]) - {"0"}, "after 12 contexts the next tier joins the screened ones"


def test_tiers_follow_the_measured_strategy_precision() -> None:
    def fact(strategy: str, reference: str) -> DocFact:
        return DocFact("How do you x?", reference, reference, strategy)

    assert draft_tier(fact("concept", "An item is the data you extract.")) == 0
    assert draft_tier(fact("instruction", "Use the `check` command to x.")) == 0
    assert draft_tier(fact("default", "By default SSL will be used.")) == 1
    assert draft_tier(fact("instruction", "You can also upload files.")) == 2


def test_a_heading_how_to_answering_one_case_of_its_task_waits() -> None:
    """pytest's "Skipping tests" section under doctests, and its "Recording warnings" section (development set)."""
    one_case = DocFact(
        "How do you skip tests?",
        "`doctest.SKIP`",
        "To skip a single check inside a doctest use `doctest.SKIP`.",
        "howto",
    )
    whole = DocFact(
        "How do you record warnings?",
        "`pytest.warns()`",
        "You can record raised warnings either using the `pytest.warns()` context manager or with the recwarn fixture.",
        "howto",
    )
    assert not names_whole_task(one_case) and draft_tier(one_case) == 1
    assert names_whole_task(whole) and draft_tier(whole) == 0


def test_the_tiers_order_the_development_readings() -> None:
    """The 220 questions of bench/readings/development.jsonl (read by hand): each tier reads good more often than
    the next, by the tier the current rules give them."""
    from bench.tier_precision import READINGS, shares

    rows = [json.loads(text) for text in (READINGS / "development.jsonl").read_text(encoding="utf-8").splitlines()]
    by_tier = {tier: good / total for tier, (good, total) in shares(rows, "tier").items()}
    assert by_tier["0"] > 0.8 and by_tier["0"] > by_tier["1"] > by_tier["2"]


def test_max_tier_keeps_the_first_tier_and_says_what_would_help(
    flask_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--max-tier 0` trades yield for precision: only the first tier fills the set; a set it cannot fill fails
    with the shortfall message naming the setting, and the manifest keeps what was accepted."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    output = tmp_path / "strict" / "testset.jsonl"
    argv = ["--quiet", "generate", "--source", str(flask_pages), "--size", "60", "--offline", "--max-tier", "0"]
    assert main([*argv, "--output", str(output)]) != 0
    assert "--max-tier (now 0)" in capsys.readouterr().err
    manifest = json.loads(output.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    generation = manifest["stats"]["generation"]
    assert set(generation["accepted_by_tier"]) == {"0"} and generation["unused"] > 0

    spread = tmp_path / "spread" / "testset.jsonl"
    assert main([*argv, "--page-share", "0.1", "--output", str(spread)]) != 0
    assert "their page had given its share of the set (--page-share now 0.1)" in capsys.readouterr().err
    spread_manifest = json.loads(spread.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    assert spread_manifest["stats"]["generation"]["page_deferred"] > 0


def test_a_page_past_its_share_gives_more_only_from_the_next_tier(
    flask_pages: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four real Flask pages, 12 questions, --page-share 0.25: three questions a page from the first tier; the
    page with more good drafts gives them only when the next tier opens, beside that tier's own drafts. Without
    the share one page gives more than three from the first tier alone."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    rows, generation = _generate(flask_pages, tmp_path / "shared", 12, "--page-share", "0.25")
    unlimited, alone = _generate(flask_pages, tmp_path / "alone", 12, "--page-share", "1")

    assert max(Counter(Path(row["source"]).name for row in unlimited).values()) > 3
    assert alone["accepted_by_tier"] == {"0": 12} and alone["page_deferred"] == 0
    assert len(rows) == 12 and generation["page_deferred"] > 0
    assert generation["accepted_by_tier"]["0"] >= 9  # the deferred drafts keep their own tier in the manifest
    assert max(Counter(Path(row["source"]).name for row in rows).values()) <= 4
    assert len({Path(row["source"]).name for row in rows}) == 4


def test_the_page_share_is_a_setting_with_a_checked_range() -> None:
    with pytest.raises(RagtestError, match=r"--page-share must be above 0.0, got 0"):
        make_config(page_share=0)
    assert make_config(size=40).generation.page_quota() == 10
    assert make_config(size=40, page_share=1).generation.page_quota() is None
