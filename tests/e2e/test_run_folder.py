"""One run folder, many corpora: each test set lives in its own store collection and never sees another's chunks;
files that are not text are named; a Wikipedia revision is pinned and the recorded command re-creates the set."""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path

import pytest

import ragtest
from ragtest.cli import main
from ragtest_core.embeddings import Embedder
from testgen import ChunkStore
from testgen.wikipedia_source import API_URL_ENV, CACHE_ENV, OFFLINE_ENV
from tests.testgen.mediawiki_stub import mediawiki_server
from tests.testgen.whole_corpus import all_chunks

PREFIX = 4000  # the first 4,000 characters of an article: a small real corpus


def _corpus(folder: Path, wiki_dir: Path, article: str) -> Path:
    folder.mkdir(parents=True)
    path = folder / f"{article}.txt"
    path.write_text((wiki_dir / f"{article}.txt").read_text(encoding="utf-8")[:PREFIX], encoding="utf-8")
    return path


def test_two_runs_in_one_folder_never_mix(tmp_path: Path, wiki_dir: Path, embedder: Embedder) -> None:
    bears = _corpus(tmp_path / "bears", wiki_dir, "Brown_bear")
    python = _corpus(tmp_path / "python", wiki_dir, "Python_(programming_language)")
    run = tmp_path / "run"
    config_a = ragtest.make_config(source=str(bears), size=3, seed=1)
    config_b = ragtest.make_config(source=str(python), size=3, seed=1)
    first = ragtest.generate(config_a, run, show_progress=False)
    second = ragtest.generate(config_b, run, show_progress=False)
    [corpus_a], [corpus_b] = {s.corpus_id for s in first.samples}, {s.corpus_id for s in second.samples}
    assert corpus_a != corpus_b
    store_a = ChunkStore(run / "chroma", embedder, collection=corpus_a, create=False)
    store_b = ChunkStore(run / "chroma", embedder, collection=corpus_b, create=False)
    assert {corpus_a, corpus_b} <= set(store_a.collection_names())
    ids_a = {c.chunk_id for c in all_chunks(store_a)}
    ids_b = {c.chunk_id for c in all_chunks(store_b)}
    assert {c.source for c in all_chunks(store_a)} == {str(bears)} and not ids_a & ids_b
    assert all(set(s.reference_context_ids) <= ids_a for s in first.samples)
    assert all(set(s.reference_context_ids) <= ids_b for s in second.samples)
    assert {s.source for s in second.samples} == {str(python)} and second.manifest["stats"]["chunks"] > 0
    # the reference RAG answers each test set from its own corpus only
    answered = ragtest.answer(second, config_b, run, show_progress=False)
    assert all(set(ids) <= ids_b for ids in answered["context_ids"])
    # the same corpus again: same collection, nothing embedded again, the same test set
    state = ragtest.api.open_run(config_a, run, show_progress=False)
    again = ragtest.api.steps.generate_testset(state, output=run / "again.jsonl")
    assert state.stats["chunks_embedded"] == 0 and state.stats["store_collection"] == corpus_a
    assert [s.question for s in again] == list(first.to_pandas()["question"])


def test_cli_names_skipped_files_and_rejects_bad_options(
    tmp_path: Path, wiki_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    _corpus(folder, wiki_dir, "Polar_bear")
    with zipfile.ZipFile(folder / "notes.txt", "w") as archive:
        archive.writestr("data.bin", bytes(range(256)) * 40)
    output = tmp_path / "out" / "testset.jsonl"
    assert main(["--quiet", "generate", "--source", str(folder), "--size", "2", "--output", str(output)]) == 0
    err = capsys.readouterr().err
    assert f"warning: skipped {folder / 'notes.txt'}: binary file" in err
    manifest = json.loads(output.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["stats"]["skipped_files"]) == [str(folder / "notes.txt")]
    bad = ["--quiet", "generate", "--source", str(folder), "--chunk-size", "100", "--chunk-overlap", "200"]
    assert main(bad) == 2
    assert "--chunk-overlap (200) must be smaller than --chunk-size (100)" in capsys.readouterr().err
    config = ragtest.cli.config_from_args(
        ragtest.cli.build_parser().parse_args(["generate", "--source", "x", "--separators", "\\n\\n", "。", ". "])
    )
    assert config.generation.separators == ("\n\n", "。", ". ")


def test_a_pinned_revision_is_recorded_and_re_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (API_URL_ENV, CACHE_ENV, OFFLINE_ENV):
        monkeypatch.delenv(name, raising=False)
    cache, output = tmp_path / "cache", tmp_path / "run" / "testset.jsonl"
    args = ["--topic", "Loopback Language", "--revision", "987000001", "--wiki-cache", str(cache)]
    with mediawiki_server() as (url, _):
        monkeypatch.setenv(API_URL_ENV, url)
        assert main(["--quiet", "generate", *args, "--size", "2", "--seed", "3", "--output", str(output)]) == 0
    manifest = json.loads(output.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    [source] = manifest["stats"]["sources"]
    assert source["source"] == "Loopback Language" and source["revision_id"] == "987000001"
    topics = Path(manifest["stats"]["topics_file"])
    assert topics.read_text(encoding="utf-8") == "Loopback Language@987000001\n"
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert {row["source_revision"] for row in rows} == {"987000001"}
    # the recorded command, offline (the page cache holds the revision), writes the same test set
    command = shlex.split(manifest["stats"]["reproduce"])
    assert command[:2] == ["ragtest", "generate"]
    assert main(["--quiet", *command[1:], "--offline"]) == 0
    reproduced = Path(command[command.index("--output") + 1])
    assert reproduced.read_bytes() == output.read_bytes()


@pytest.mark.slow
def test_the_readme_brown_bear_example_works_offline(tmp_path: Path, wiki_dir: Path) -> None:
    """`ragtest generate --topic "Brown bear" --size 15` offline: 15 questions from the one article."""
    output = tmp_path / "bear" / "testset.jsonl"
    args = ["--quiet", "generate", "--topic", "Brown bear", "--wiki-cache", str(wiki_dir), "--offline"]
    assert main([*args, "--size", "15", "--output", str(output)]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 15 and all(row["ground_truth"].endswith(".") and row["answer_span"] for row in rows)
    assert not any(" and " in row["question"] for row in rows if row["question_type"] == "multi_context")


@pytest.mark.slow
@pytest.mark.parametrize(
    "topic",
    [
        "Artificial intelligence",
        "Brown bear",
        "Deep learning",
        "Java (programming language)",
        "Machine learning",
        "Polar bear",
        "Python (programming language)",
    ],
)
def test_each_shared_article_gives_20_questions_offline(tmp_path: Path, wiki_dir: Path, topic: str) -> None:
    """`ragtest generate --topic T --size 20 --offline --seed 11` for each article on its own (issue 12)."""
    output = tmp_path / "one" / "testset.jsonl"
    args = ["--quiet", "generate", "--topic", topic, "--wiki-cache", str(wiki_dir), "--offline", "--seed", "11"]
    assert main([*args, "--size", "20", "--output", str(output)]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20 and len({row["question"].lower() for row in rows}) == 20
    assert all(row["ground_truth"].endswith(".") and row["answer_span"] in row["ground_truth"] for row in rows)
