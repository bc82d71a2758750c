"""Ingest chunks/s and local-judge rows/s: one process, one Ray worker, two Ray workers, as ratios of one run.

    python -m bench.ray_bench [--rows N]

A two-node Ray cluster starts on this machine (`ray.cluster_utils.Cluster`, one CPU a node; it stops only its own
processes). Ingest: the seven shared Wikipedia articles and the HTTPX docs (distinct text, so no memo helps) loaded,
chunked, embedded and written to a Chroma server this bench starts; each run writes into an emptied collection and
embeds with a fresh model. Scoring: the first `--rows` rows of BEGIN (distinct passages and responses) with the
local judge's faithfulness, answer relevancy and context relevance. Times are wall-clock for the whole stage,
worker start-up and model loading included (what a user waits for); each Ray worker embeds on one thread, the one
process on its default threads. Also the Chroma server's write rate for vectors computed elsewhere (the ceiling of
a distributed ingest into one server). On a shared machine the absolute rates move from run to run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluation.engine import evaluate_dataset
from testgen.chunking import Chunk

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
METRICS = ["faithfulness", "answer_relevancy", "context_relevance"]


def timed(work: Callable[[], int]) -> tuple[int, float]:
    started = time.perf_counter()
    count = work()
    return count, time.perf_counter() - started


def start_chroma(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = Path(sys.executable).parent / "chroma"
    process = subprocess.Popen(
        [str(chroma), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("chroma run did not start")


def corpus(folder: Path) -> Path:
    shutil.copytree(SHARED / "wikipedia", folder / "wikipedia")
    shutil.copytree(SHARED / "docs" / "httpx", folder / "httpx")
    return folder


def begin_rows(count: int) -> Any:
    import pandas as pd

    rows = pd.read_json(SHARED / "begin" / "begin_dev.jsonl", lines=True).head(count)
    return pd.DataFrame(
        {"question": rows["message"], "answer": rows["response"], "contexts": [[k] for k in rows["knowledge"]]}
    )


def write_rate(url: str, count: int = 5000) -> tuple[int, float]:
    """Chunks/s the server takes with their vectors computed elsewhere (random unit vectors, 384 dimensions)."""
    import numpy as np

    import testgen
    from ragtest_core.embeddings import Embedder

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [Chunk(chunk_id=f"w{i}", text=f"text {i}", doc_id="d", source="s", position=i) for i in range(count)]
    store = testgen.ChunkStore(None, Embedder(), collection="ragtest-write-rate", url=url)
    return timed(lambda: store.write_embedded(chunks, vectors.tolist()))


def drop_collections(url: str) -> None:
    import chromadb
    from chromadb.config import Settings

    host, port = url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port), settings=Settings(anonymized_telemetry=False))
    for collection in client.list_collections():
        client.delete_collection(str(collection.name))


def ingest_one_process(source: Path, url: str) -> int:
    import testgen
    from ragtest_core.embeddings import Embedder

    embedder = Embedder()  # a fresh memo
    chunks = testgen.chunk_documents(testgen.load_files(source))
    store = testgen.ChunkStore.for_corpus(None, embedder, chunks, url=url)
    return store.embedded


def ingest_on_ray(source: Path, url: str, address: str, workers: int, run_dir: Path) -> int:
    import ragtest
    from ragtest.distributed import ingest_on_ray as ingest
    from ragtest.run_state import open_run
    from ragtest_core.embeddings import get_embedder

    config = ragtest.make_config(source=str(source), store_url=url, ray_address=address, ray_workers=workers)
    state = open_run(config, run_dir, show_progress=False)
    return ingest(state, run_dir / "chroma", get_embedder()).embedded


def score_one_process(frame: Any) -> int:
    from evaluation.engine import evaluate_dataset
    from ragtest_core.embeddings import Embedder

    return len(evaluate_dataset(frame, metrics=METRICS, embedder=Embedder(), show_progress=False).frame)


def score_on_ray(frame: Any, address: str, workers: int, run_dir: Path) -> int:
    import ragtest
    from ragtest.distributed import ray_row_scorer
    from ragtest.run_state import open_run

    state = open_run(ragtest.make_config(ray_address=address, ray_workers=workers), run_dir, show_progress=False)
    scorer = ray_row_scorer(state, run_dir / "scores.partial.jsonl")
    return len(evaluate_dataset(frame, metrics=METRICS, row_scorer=scorer, show_progress=False).frame)


def report(kind: str, unit: str, runs: dict[str, tuple[int, float]]) -> None:
    rates = {name: count / seconds for name, (count, seconds) in runs.items()}
    for name, (count, seconds) in runs.items():
        print(f"  {kind:<7} {name:<14} {count:>6} {unit} in {seconds:7.1f} s = {rates[name]:8.1f} {unit}/s")
    one, single, two = rates["one process"], rates["1 Ray worker"], rates["2 Ray workers"]
    print(f"  {kind:<7} ratio 1 Ray worker / one process   = {single / one:.2f}")
    print(f"  {kind:<7} ratio 2 Ray workers / 1 Ray worker = {two / single:.2f} (2.00 = linear)")
    print(f"  {kind:<7} ratio 2 Ray workers / one process  = {two / one:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=400, help="BEGIN rows to score (400)")
    args = parser.parse_args(argv)

    import ray
    from ray.cluster_utils import Cluster

    from ragtest.distributed import shutdown

    work = Path(tempfile.mkdtemp(prefix="ragtest-ray-bench-"))
    chroma, url = start_chroma(work / "chroma-server")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        source = corpus(work / "corpus")
        ingest: dict[str, tuple[int, float]] = {}
        drop_collections(url)
        ingest["one process"] = timed(lambda: ingest_one_process(source, url))
        for workers, name in ((1, "1 Ray worker"), (2, "2 Ray workers")):
            drop_collections(url)
            run_dir = work / f"ingest-{workers}"
            ingest[name] = timed(lambda w=workers, d=run_dir: ingest_on_ray(source, url, cluster.address, w, d))  # type: ignore[misc]
        frame = begin_rows(args.rows)
        scoring: dict[str, tuple[int, float]] = {"one process": timed(lambda: score_one_process(frame))}
        for workers, name in ((1, "1 Ray worker"), (2, "2 Ray workers")):
            run_dir = work / f"score-{workers}"
            scoring[name] = timed(lambda w=workers, d=run_dir: score_on_ray(frame, cluster.address, w, d))  # type: ignore[misc]
        print(f"ray_bench: {os.cpu_count()} cores here; a two-node cluster of one CPU a node")
        report("ingest", "chunks", ingest)
        report("judge", "rows", scoring)
        drop_collections(url)
        written, seconds = write_rate(url)
        print(f"  store   the Chroma server writes {written / seconds:.0f} chunks/s (vectors computed elsewhere)")
    finally:
        shutdown()
        ray.shutdown()
        cluster.shutdown()
        chroma.terminate()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
