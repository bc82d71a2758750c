"""Speed of the local judge: rows per second for the five RAGAS metrics, once the model is loaded.

    python -m bench.eval_bench [--data DIR] [--repeat 3] [--dtype float32|bfloat16|auto] [--backends onnx,torch]

Each run starts cold apart from the loaded model: a fresh embedding memo and an empty sentence-split cache, so
every distinct text of the run is split and embedded once, as in a real `ragtest evaluate`. Prints rows/s per
dataset and embedding backend (best and worst of --repeat runs, the backends alternating in one process), where
the time goes, the ratio to the 50 rows/s target, the onnx/torch speed ratio per repeat, and the largest score
difference between the backends.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from evaluation.engine import evaluate_dataset
from evaluation.meta_eval import load_wikieval
from ragtest_core import textunits
from ragtest_core.datasets import read_dataset
from ragtest_core.embeddings import DEFAULT_DTYPE, PRECISIONS, Embedder, get_embedder
from ragtest_core.text import sentence_tuple

TARGET_ROWS_PER_S = 50.0
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


class TimedEmbedder(Embedder):
    """The loaded model with a fresh memo; counts texts embedded and the time spent in the model."""

    def __init__(self, base: Embedder) -> None:
        super().__init__(base.model_name, base.batch_size, base.dtype, backend=base.backend)
        self._model = base._model
        self._onnx = base._onnx
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


def run_once(frame: pd.DataFrame, base: Embedder) -> tuple[float, TimedEmbedder, pd.DataFrame]:
    sentence_tuple.cache_clear()
    textunits.unit.cache_clear()
    embedder = TimedEmbedder(base)
    started = time.perf_counter()
    result = evaluate_dataset(frame, embedder=embedder, show_progress=False)
    return time.perf_counter() - started, embedder, result.frame


def wikieval_frame(path: Path) -> pd.DataFrame:
    rows = load_wikieval(path)
    return pd.DataFrame(
        [{"question": r["question"], "answer": r["answer"], "contexts": r["context_v1"]} for r in rows]
    ).assign(ground_truth=[r["answer"] for r in rows])


def batch_size(embedder: Embedder) -> int:
    from ragtest_core.onnx_embedder import BATCH_SIZE

    return BATCH_SIZE if embedder.backend == "onnx" else embedder.batch_size


def load_backend(backend: str, dtype: str) -> Embedder:
    embedder = get_embedder(dtype=dtype, backend=backend)
    embedder.embed(["load the model before timing"])
    return embedder


def max_score_difference(left: pd.DataFrame, right: pd.DataFrame) -> float:
    """The largest absolute difference between two runs' scores (metric columns only)."""
    worst = 0.0
    for column in left.columns:
        if column.endswith("_reason") or left[column].dtype != object:
            continue
        for a, b in zip(left[column], right[column], strict=True):
            if isinstance(a, float) and isinstance(b, float):
                worst = max(worst, abs(a - b))
    return worst


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("RAGTEST_SHARED_DATA", DATA)))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--dtype", choices=PRECISIONS, default=DEFAULT_DTYPE, help=f"embedding precision (default: {DEFAULT_DTYPE})"
    )
    parser.add_argument("--backends", default="onnx,torch", help="embedding backends to compare (default onnx,torch)")
    parser.add_argument("--only", choices=("fiqa", "wikieval"), help="one dataset only")
    args = parser.parse_args(argv)
    backends = {name: load_backend(name, args.dtype) for name in args.backends.split(",")}
    datasets = {
        "FiQA (30 rows, ~3,000-char contexts)": read_dataset(args.data / "fiqa" / "fiqa.jsonl"),
        "WikiEval (50 rows, ~4,000-char contexts)": wikieval_frame(args.data / "wikieval" / "wikieval.jsonl"),
    }
    if args.only:
        datasets = {label: frame for label, frame in datasets.items() if label.lower().startswith(args.only)}
    print(
        f"local judge, five RAGAS metrics, {os.cpu_count()} CPU(s); backends "
        + ", ".join(f"{e.backend} ({e.precision}, batch {batch_size(e)})" for e in backends.values())
        + f"; target {TARGET_ROWS_PER_S:.0f} rows/s"
    )
    for label, frame in datasets.items():
        runs: dict[str, list[tuple[float, TimedEmbedder, pd.DataFrame]]] = {name: [] for name in backends}
        for _ in range(max(1, args.repeat)):
            for name, base in backends.items():  # alternating, so load drift hits every backend alike
                runs[name].append(run_once(frame, base))
        for name, timed in runs.items():
            seconds, embedder, _ = min(timed, key=lambda r: r[0])
            worst = max(r[0] for r in timed)
            rate = len(frame) / seconds
            print(
                f"{label} [{name}]: {rate:.1f} rows/s best, {len(frame) / worst:.1f} worst ({seconds:.2f} s; "
                f"embedding {embedder.texts} texts took {embedder.seconds:.2f} s = {embedder.seconds / seconds:.0%}); "
                f"ratio to target {rate / TARGET_ROWS_PER_S:.2f}"
            )
        if "onnx" in runs and "torch" in runs:
            ratios = [t[0] / o[0] for o, t in zip(runs["onnx"], runs["torch"], strict=True)]
            diff = max_score_difference(runs["onnx"][0][2], runs["torch"][0][2])
            embed = [
                (t[1].seconds / max(t[1].texts, 1)) / (o[1].seconds / max(o[1].texts, 1))
                for o, t in zip(runs["onnx"], runs["torch"], strict=True)
            ]
            print(f"{label}: onnx/torch embedding texts/s per repeat {', '.join(f'{r:.2f}' for r in embed)}")
            print(
                f"{label}: onnx/torch rows/s per repeat {', '.join(f'{r:.2f}' for r in ratios)} "
                f"(best {max(ratios):.2f}, worst {min(ratios):.2f}); largest score difference {diff:.1e}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
