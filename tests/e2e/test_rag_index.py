"""Settings that apply or are refused, and a reference RAG with an index of its own, on one test set: the real CLI,
Chroma and MiniLM on the shipped Wikipedia page (examples/wikipedia)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import ragtest
from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from ragtest_core.errors import RagtestError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "wikipedia"
TOPIC = "Python (programming language)"
METRICS = "hit_rate,mrr,context_recall"


def manifest(run: Path) -> dict[str, Any]:
    return json.loads((run / "manifest.json").read_text())


def retrieved(run: Path) -> list[list[str]]:
    return [row["contexts"] for row in read_jsonl(run / "answers.jsonl")]


def run_on(testset: Path, out: Path, *flags: str) -> int:
    return main(["--quiet", "run", "--testset", str(testset), "--metrics", METRICS, "--out", str(out), *flags])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A default run (test set, store and scores) on the shipped page."""
    out = tmp_path_factory.mktemp("rag-index") / "v1"
    source = ["--topic", TOPIC, "--wiki-cache", str(EXAMPLES), "--offline", "--size", "6", "--seed", "5"]
    assert main(["--quiet", "run", *source, "--metrics", METRICS, "--out", str(out)]) == 0
    return out


def test_a_generation_setting_on_a_given_test_set_is_refused(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    testset = base / "testset.jsonl"
    assert run_on(testset, tmp_path / "v2", "--chunk-size", "300") == 2
    error = capsys.readouterr().err
    assert "--chunk-size is not used by `run` with --testset" in error and "--rag-chunk-size" in error
    assert not (tmp_path / "v2").exists()  # refused before anything ran
    assert run_on(testset, tmp_path / "v2", "--topic", "Brown bear", "--no-offline") == 2
    error = capsys.readouterr().err
    assert "--topic is not used" in error and "--offline is not used" in error
    with pytest.raises(SystemExit) as exit_info:  # a setting of another command: named, with what uses it
        main(["generate", "--topic", TOPIC, "--rag-k", "3"])
    assert exit_info.value.code == 2
    assert "--rag-k is not used by `generate`: it is used by `answer` and `run`" in capsys.readouterr().err


def test_the_python_api_refuses_the_same_way(base: Path) -> None:
    with pytest.raises(RagtestError, match=r"--chunk-size is not used.*--rag-chunk-size sets its own"):
        ragtest.make_config(testset=str(base / "testset.jsonl"), chunk_size=300)
    with pytest.raises(RagtestError, match=r"--rag-k is not used when --rag is given: it applies to the reference"):
        ragtest.make_config(rag="mypkg.rag:MyRAG", rag_k=8)
    with pytest.raises(RagtestError, match=r"--rag-arg is used only with --rag"):
        ragtest.make_config(rag_args={"url": "http://127.0.0.1:1/rag"})
    config = ragtest.make_config(testset=str(base / "testset.jsonl"), rag_chunk_size=256, metrics=METRICS)
    assert config.rag_chunk_size == 256


def test_another_chunking_gets_an_index_of_its_own_and_compares(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    testset = base / "testset.jsonl"
    assert run_on(testset, tmp_path / "v2", "--rag-chunk-size", "256") == 0
    before, after = retrieved(base), retrieved(tmp_path / "v2")
    assert sum(b != a for b, a in zip(before, after, strict=True)) == len(before)  # every row retrieved anew
    assert max(len(text) for row in after for text in row) <= 256 < max(len(text) for row in before for text in row)
    record = manifest(tmp_path / "v2")
    assert record["config"]["rag_chunk_size"] == 256
    assert "generation" not in record["config"] and "sources" not in record["config"]  # not applied: not recorded
    index = record["stats"]["rag_index"]
    assert index["chunk_size"] == 256 and index["chunk_overlap"] == 128 and index["documents"] == 1
    assert index["vectors_computed"] + index["vectors_reused"] == index["chunks"] > 100
    assert "its own index: 256-character chunks" in record["stats"]["rag_adapter"]
    scores = read_jsonl(tmp_path / "v2" / "scores.jsonl")
    ids_matched = ("gold ids at ranks", "no gold id retrieved")  # the reasons of a row matched by chunk ids
    assert not any(reason in row["hit_rate_reason"] for row in scores for reason in ids_matched)
    assert any("matched by text overlap" in row["hit_rate_reason"] for row in scores)

    out = tmp_path / "cmp"
    assert main(["compare", str(base), str(tmp_path / "v2"), "--out", str(out)]) in (0, 1)  # comparable
    assert "cannot compare" not in capsys.readouterr().err

    assert run_on(testset, tmp_path / "v3", "--rag-chunk-size", "256") == 0  # again, into a fresh folder
    again = manifest(tmp_path / "v3")["stats"]["rag_index"]
    assert again["vectors_computed"] == 0 and again["vectors_reused"] == again["vectors_embedded"] == index["chunks"]
    assert retrieved(tmp_path / "v3") == after


def test_the_test_sets_own_settings_keep_its_store_or_rebuild_it_alike(base: Path, tmp_path: Path) -> None:
    testset = base / "testset.jsonl"
    assert run_on(testset, tmp_path / "same", "--rag-chunk-size", "512") == 0  # the test set's own size
    assert "rag_index" not in manifest(tmp_path / "same")["stats"]
    assert retrieved(tmp_path / "same") == retrieved(base)
    # the same weights under another name: an index of its own, cut as the test set's store was, retrieves alike
    model = "sentence-transformers/all-MiniLM-L6-v2"
    assert run_on(testset, tmp_path / "model", "--rag-embedding-model", model) == 0
    index = manifest(tmp_path / "model")["stats"]["rag_index"]
    assert index["embedding_model"] == model and index["chunk_size"] == 512
    assert retrieved(tmp_path / "model") == retrieved(base)


def test_documents_changed_since_the_test_set_are_refused(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(base / "testset.jsonl", copy / "testset.jsonl")
    record = manifest(base)
    record["stats"]["testset_store"]["documents"] = ["0123456789abcdef"]  # a text the page no longer has
    record["stats"]["testset_store"]["store_dir"] = str(base / "chroma")
    (copy / "manifest.json").write_text(json.dumps(record))
    assert run_on(copy / "testset.jsonl", tmp_path / "v2", "--rag-chunk-overlap", "64") == 2
    assert "1 of its 1 document(s) are gone or changed" in capsys.readouterr().err
