"""Ray on a real two-node cluster (CI's default run): ingest real articles into a Chroma server as a Ray Data
pipeline (the chunk ids one process makes; a second ingest writes nothing new), then score on Ray: the scores equal
the single-process run's to 1e-6, in the input's order."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ragtest.distributed.scoring as ray_scoring
from ragtest.cli import main
from ragtest.cli_args import build_parser, config_from_args
from ragtest_core.embeddings import Embedder
from testgen import ChunkStore, chunk_documents, load_files

ARTICLES = ["Java_(programming_language).txt", "Python_(programming_language).txt"]
FIVE = ["faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall"]


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def stats(output: Path) -> dict[str, Any]:
    manifest = json.loads(output.with_name(f"{output.stem}.manifest.json").read_text())
    found: dict[str, Any] = manifest["stats"]
    return found


def assert_same_scores(left: list[dict[str, Any]], right: list[dict[str, Any]], metrics: list[str]) -> None:
    assert [row["question"] for row in left] == [row["question"] for row in right]  # the input's order
    for a, b in zip(left, right, strict=True):
        for name in metrics:
            if a[name] is None or b[name] is None:
                assert a[name] is None and b[name] is None and a[f"{name}_reason"] == b[f"{name}_reason"]
            else:
                assert math.isclose(a[name], b[name], abs_tol=1e-6), (name, a[name], b[name])


def test_ray_flags() -> None:
    parser = build_parser()
    assert config_from_args(parser.parse_args(["evaluate", "--input", "x", "--ray"])).ray_address == "auto"
    given = parser.parse_args(["generate", "--ray", "10.0.0.5:6379", "--ray-workers", "3"])
    assert config_from_args(given).ray_address == "10.0.0.5:6379" and config_from_args(given).ray_workers == 3
    assert config_from_args(parser.parse_args(["evaluate", "--input", "x"])).ray_address is None


def test_ray_ingest_into_a_chroma_server_and_scores_equal_one_process(
    ray_cluster: str,
    chroma_server: str,
    wiki_dir: Path,
    test_data: Path,
    tmp_path: Path,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ARTICLES:
        shutil.copy(wiki_dir / name, corpus / name)
    # a Sphinx `:ref:` to a section on another page: the workers read each page alone, the driver resolves it
    (corpus / "a_spiders.rst").write_text(
        "Guide\n=====\n\n.. _topics-spiders:\n\nSpiders\n-------\n\nSpiders are classes that define how a site is"
        " crawled and how structured data is extracted from its pages.\n",
        "utf-8",
    )
    (corpus / "b_middleware.rst").write_text(
        "Middleware\n==========\n\nThe spider middleware processes the responses that are sent to"
        " :ref:`topics-spiders` for processing, and the requests and items that come out of them.\n",
        "utf-8",
    )
    (corpus / "notes.xyz").write_text("not a document type ragtest reads", "utf-8")  # named in the manifest
    ingest_and_score(ray_cluster, chroma_server, corpus, 4, test_data, tmp_path, embedder, monkeypatch)


@pytest.mark.slow
def test_ray_ingests_every_shared_corpus_and_scores_equal_one_process(
    ray_cluster: str,
    chroma_server: str,
    test_data: Path,
    tmp_path: Path,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The seven Wikipedia articles and the HTTPX docs (Markdown), one Ray ingest, 12 questions."""
    corpus = tmp_path / "corpus"
    shutil.copytree(test_data / "wikipedia", corpus / "wikipedia")
    shutil.copytree(test_data / "docs" / "httpx", corpus / "httpx")
    ingest_and_score(ray_cluster, chroma_server, corpus, 12, test_data, tmp_path, embedder, monkeypatch)


def ingest_and_score(
    ray_cluster: str,
    chroma_server: str,
    corpus: Path,
    size: int,
    test_data: Path,
    tmp_path: Path,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ray

    testset = tmp_path / "ray" / "testset.jsonl"
    generate = ["--quiet", "generate", "--source", str(corpus), "--size", str(size), "--store-url", chroma_server]
    assert main([*generate, "--output", str(testset), "--ray", ray_cluster]) == 0
    assert len([node for node in ray.nodes() if node["Alive"]]) == 2
    first = stats(testset)
    local_ids = sorted(c.chunk_id for c in chunk_documents(load_files(corpus)))
    assert first["chunks"] == first["chunks_embedded"] == len(local_ids) > 100
    store = ChunkStore(None, embedder, collection=first["store_collection"], url=chroma_server, create=False)
    assert sorted(key.chunk_id for key in store.chunk_keys()) == local_ids  # the ids one process makes

    again = tmp_path / "again" / "testset.jsonl"
    assert main([*generate, "--output", str(again), "--ray", ray_cluster]) == 0
    assert stats(again)["chunks_embedded"] == 0 and stats(again)["store_collection"] == first["store_collection"]
    one_process = tmp_path / "local" / "testset.jsonl"
    assert main([*generate, "--output", str(one_process)]) == 0  # the same collection, found full
    assert stats(one_process)["chunks_embedded"] == 0 and read(one_process) == read(testset)
    assert first["skipped_files"] == stats(one_process)["skipped_files"]  # each skipped file by its path

    answers = tmp_path / "answers.jsonl"
    assert (
        main(["--quiet", "answer", "--input", str(testset), "--output", str(answers), "--store-url", chroma_server])
        == 0
    )
    monkeypatch.setattr(ray_scoring, "ROWS_PER_PARTITION", 8)  # several partitions for the two workers
    fiqa = test_data / "fiqa" / "fiqa.jsonl"
    for dataset in (answers, fiqa):
        on_ray, here = tmp_path / "scored-ray" / dataset.name, tmp_path / "scored-here" / dataset.name
        assert (
            main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(on_ray), "--ray", ray_cluster]) == 0
        )
        assert main(["--quiet", "evaluate", "--input", str(dataset), "--output", str(here)]) == 0
        assert_same_scores(read(on_ray), read(here), FIVE)
        assert not (on_ray.parent / "scores.partial.jsonl").exists()  # the progress file goes once all is scored


#: The CLI, with the scoring bar's counts written to a file at each update and partitions of 8 rows.
CLI_WITH_BAR_RECORD = """\
import json, sys
import ragtest.distributed.scoring as scoring
from ragtest.cli import main

class RecordedBar(scoring.tqdm):
    def update(self, n=1):
        shown = super().update(n)
        with open(sys.argv[1], "a") as out:
            out.write(json.dumps([self.n, self.total]) + "\\n")
        return shown

scoring.ROWS_PER_PARTITION = 8
scoring.tqdm = RecordedBar
sys.exit(main(sys.argv[2:]))
"""
#: Ray's own lines: its Python loggers' format, its C++ format, its workers' prefixes, its usual words.
RAY_LINE = re.compile(
    r"\t(DEBUG|INFO|WARNING|ERROR) \S+\.py:\d+ -- |\[\d{4}-\d\d-\d\d [\d:,]+ [DIWEF] \d+ \d+\]|\((raylet|\w+ )?pid=\d+"
    r"|core_worker|streaming_executor|Dataset dataset_|Ray instance|Ray cluster|ray\.data|/ray/|authentication"
)


def test_ray_is_quiet_on_the_console_its_lines_in_the_run_log_and_the_bar_moves_per_batch(
    ray_cluster: str, test_data: Path, tmp_path: Path
) -> None:
    """`evaluate --ray` as a user runs it (its own process, bars on): stdout and stderr, read at the descriptors,
    hold ragtest's lines and the bar but no Ray line; the run folder's ray.log holds Ray's (its loggers' and its C++
    core worker's); the bar counts each partition as it comes back, not all rows at the end."""
    out = tmp_path / "run" / "scores.jsonl"
    counts = tmp_path / "bar.jsonl"
    args = ["evaluate", "--input", str(test_data / "fiqa" / "fiqa.jsonl"), "--output", str(out), "--ray", ray_cluster]
    args += ["--metrics", "faithfulness,context_recall"]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", CLI_WITH_BAR_RECORD, str(counts), *args], env=env, capture_output=True, timeout=600
    )
    console = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == 0, console[-3000:]
    lines = [line for line in re.split(r"[\r\n]+", console) if line.strip()]
    assert not [line for line in lines if RAY_LINE.search(line)], console
    assert any("wrote 30 scored rows" in line for line in lines)
    assert any("scoring (local judge) on Ray" in line and "30/30" in line for line in lines)

    log = (out.parent / "ray.log").read_text(encoding="utf-8")
    assert "Starting execution of Dataset" in log  # Ray Data's logger
    assert "core_worker.cc" in log  # Ray's C++ core worker, which writes to the process's stderr itself
    assert "Ray's session folder" in log

    shown = [json.loads(line) for line in counts.read_text().splitlines()]  # [rows counted, total] per update
    assert {total for _, total in shown} == {30}
    counted = [n for n, _ in shown]  # partitions of 8 rows: Ray Data may hand two back as one batch
    assert len(counted) >= 2 and counted[0] <= 16 and counted == sorted(set(counted)) and counted[-1] == 30
