"""Speed of the local judge: rows per second for the five RAGAS metrics, once the model is loaded.

    python -m bench.eval_bench [--data DIR] [--repeat 3] [--dtype float32|bfloat16|auto]

Each run starts cold apart from the loaded model: a fresh embedding memo and an empty sentence-split cache, so
every distinct text of the run is split and embedded once, as in a real `ragtest evaluate`. Prints rows/s per
dataset (best of --repeat runs), where the time goes, and the ratio to the 50 rows/s target.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import torch

from evaluation import evaluate_dataset
from evaluation.meta_eval import load_wikieval
from ragtest_core import textunits
from ragtest_core.datasets import read_dataset
from ragtest_core.embeddings import DEFAULT_DTYPE, PRECISIONS, Embedder, get_embedder
from ragtest_core.text import clear_caches

TARGET_ROWS_PER_S = 50.0
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


class TimedEmbedder(Embedder):
    """The loaded model with a fresh memo; counts texts embedded and the time spent in the model."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name, base.batch_size, base.dtype)
        self._model = base.model
        self.seconds = 0.0
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> object:  # type: ignore[override]
        new = len({t for t in texts if t not in self._memo})
        started = time.perf_counter()
        result = super().embed(texts)
        if new:
            self.seconds += time.perf_counter() - started
            self.texts += new
        return result


def run_once(frame: pd.DataFrame, base: Embedder) -> tuple[float, TimedEmbedder]:
    clear_caches()
    textunits.clear_caches()
    embedder = TimedEmbedder(base)
    started = time.perf_counter()
    evaluate_dataset(frame, embedder=embedder, show_progress=False)
    return time.perf_counter() - started, embedder


def wikieval_frame(path: Path) -> pd.DataFrame:
    rows = load_wikieval(path)
    return pd.DataFrame(
        [{"question": r["question"], "answer": r["answer"], "contexts": r["context_v1"]} for r in rows]
    ).assign(ground_truth=[r["answer"] for r in rows])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("RAGTEST_SHARED_DATA", DATA)))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--dtype", choices=PRECISIONS, default=DEFAULT_DTYPE, help=f"embedding precision (default: {DEFAULT_DTYPE})"
    )
    args = parser.parse_args(argv)
    base = get_embedder(dtype=args.dtype)
    base.embed(["load the model before timing"])
    datasets = {
        "FiQA (30 rows, ~3,000-char contexts)": read_dataset(args.data / "fiqa" / "fiqa.jsonl"),
        "WikiEval (50 rows, ~4,000-char contexts)": wikieval_frame(args.data / "wikieval" / "wikieval.jsonl"),
    }
    print(
        f"local judge, five RAGAS metrics, {os.cpu_count()} CPU(s), {torch.get_num_threads()} torch thread(s), "
        f"embeddings in {base.precision} (batch {base.batch_size}); target {TARGET_ROWS_PER_S:.0f} rows/s"
    )
    for label, frame in datasets.items():
        runs = [run_once(frame, base) for _ in range(max(1, args.repeat))]
        seconds, embedder = min(runs, key=lambda r: r[0])
        rate = len(frame) / seconds
        share = embedder.seconds / seconds
        print(
            f"{label}: {rate:.1f} rows/s ({seconds:.2f} s; embedding {embedder.texts} texts took "
            f"{embedder.seconds:.2f} s = {share:.0%}); ratio to target {rate / TARGET_ROWS_PER_S:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
