"""`answer` (the command and `ragtest.answer`) and `run --testset` find a test set's facts by one lookup: a reviewed
copy (X.reviewed.jsonl) without a manifest of its own reads its test set's (X.manifest.json), and a test set that a
run copied into its own folder is answered from the store its manifest records, not from an empty folder beside the
copy. Real CLI, Chroma and MiniLM on the session's generated test set (tests/e2e/conftest.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import ragtest
from ragtest.cli import main
from ragtest.review import TestsetReview
from ragtest_core.datasets import read_jsonl
from tests.e2e.conftest import TwoVariants


def stats(manifest: Path) -> dict[str, Any]:
    return json.loads(manifest.read_text(encoding="utf-8"))["stats"]


def contexts(answers: Path) -> list[list[str]]:
    return [row["contexts"] for row in read_jsonl(answers)]


@pytest.fixture
def generated(two_variants: TwoVariants, tmp_path: Path) -> Path:
    """What `generate --output DIR/testset.jsonl` leaves, reviewed: testset.jsonl, testset.manifest.json and the
    store, no manifest.json; then testset.reviewed.jsonl with one question rejected."""
    folder = tmp_path / "generated"
    folder.mkdir()
    for name in ("testset.jsonl", "testset.manifest.json"):
        shutil.copy(two_variants.root / name, folder / name)
    shutil.copytree(two_variants.root / "chroma", folder / "chroma")
    TestsetReview(folder / "testset.jsonl").decide(0, "rejected", reason="not answerable from the page")
    assert (folder / "testset.reviewed.jsonl").is_file() and not (folder / "manifest.json").exists()
    return folder


def test_a_reviewed_copy_without_a_manifest_of_its_own_reads_its_test_sets(generated: Path, tmp_path: Path) -> None:
    """The review page copies the manifest beside the reviewed copy; a reviewed copy without that copy (edited by
    hand, or reviewed by an older ragtest) reads the test set's X.manifest.json."""
    (generated / "testset.reviewed.manifest.json").unlink()
    answers = tmp_path / "a" / "answers.jsonl"
    assert main(["--quiet", "answer", "--input", str(generated / "testset.jsonl"), "--output", str(answers)]) == 0
    original, inherited = stats(generated / "testset.manifest.json"), stats(tmp_path / "a" / "answers.manifest.json")
    assert inherited["testset_seed"] == original["testset_seed"] == 3  # carried from X.manifest.json
    assert inherited["generation"] == original["generation"]
    assert inherited["testset_store"]["store_dir"] == str((generated / "chroma").resolve())


def test_a_copied_test_set_is_answered_from_the_store_its_manifest_records(generated: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["--quiet", "run", "--testset", str(generated / "testset.jsonl"), "--metrics", "hit_rate"]
    assert main([*args, "--out", str(run)]) == 0
    assert stats(run / "manifest.json")["testset_store"]["store_dir"] == str((generated / "chroma").resolve())
    assert not (run / "chroma").exists()  # the run's copy of the test set has no store beside it

    by_cli = tmp_path / "cli" / "answers.jsonl"
    assert main(["--quiet", "answer", "--input", str(run / "testset.jsonl"), "--output", str(by_cli)]) == 0
    by_api = tmp_path / "api"
    ragtest.answer(run / "testset.jsonl", ragtest.make_config(), by_api, show_progress=False)
    assert contexts(by_cli) == contexts(by_api / "answers.jsonl") == contexts(run / "answers.jsonl")
    for manifest in (tmp_path / "cli" / "answers.manifest.json", by_api / "answers.manifest.json"):
        assert stats(manifest)["testset_store"]["store_dir"] == str((generated / "chroma").resolve())
