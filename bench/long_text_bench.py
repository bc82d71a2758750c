"""Long texts: sentence splitting, the refusal check and `ragtest evaluate` on one answer of 500 KB, 1 MB and 5 MB.

    python -m bench.long_text_bench [--sizes 500000,1000000,5000000] [--skip-evaluate]

The answer is real prose (the seven shared Wikipedia articles, joined into one line, repeated to size): one line
is pysbd's worst case, since ragtest splits line by line. Prints, per size, the time of `split_sentences` and
`is_refusal` on the whole text (no size limit: the linear splitter alone), and of the whole command
`ragtest evaluate` (a fresh process: read, score with the local judge and the five RAGAS metrics under the default
--max-field-chars, write scores, summary, report), each with its ratio to the first size. Linear work gives a
ratio equal to the size ratio (x2, x10); pysbd on the whole line grew about x4 for x2 (500 KB: 19 s; 1 MB: about
40 s in its sentence-span step alone; 5 MB did not finish in 900 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))


def prose(size: int) -> str:
    """`size` characters of real prose on one line."""
    text = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in sorted((DATA / "wikipedia").glob("*.txt")))
    return (text * (size // len(text) + 1))[:size]


def time_split(text: str) -> tuple[float, float, int]:
    from evaluation.refusal import is_refusal
    from ragtest_core.text import sentence_tuple, split_sentences

    sentence_tuple.cache_clear()
    started = time.perf_counter()
    sentences = split_sentences(text)
    split_s = time.perf_counter() - started
    started = time.perf_counter()
    is_refusal(text)
    return split_s, time.perf_counter() - started, len(sentences)


def time_evaluate(text: str, work: Path) -> float:
    row = {
        "question": "What is a brown bear?",
        "answer": text,
        "contexts": ["The brown bear is a large bear native to Eurasia and North America."],
        "ground_truth": "A large bear native to Eurasia and North America.",
    }
    source = work / f"long-{len(text)}.jsonl"
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    command = [sys.executable, "-m", "ragtest.cli", "--quiet", "evaluate", "--input", str(source)]
    command += ["--output", str(work / f"scored-{len(text)}.jsonl")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"evaluate failed:\n{done.stderr[-2000:]}")
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.long_text_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500000,1000000,5000000")
    parser.add_argument("--skip-evaluate", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="long-text-") as tmp:
        work = Path(tmp)
        if not args.skip_evaluate:
            time_evaluate(prose(2000), work)  # warm: the ONNX export and file caches, outside the timings
        for size in sizes:
            text = prose(size)
            split_s, refusal_s, sentences = time_split(text)
            evaluate_s = None if args.skip_evaluate else time_evaluate(text, work)
            rows.append((size, sentences, split_s, refusal_s, evaluate_s))
            print(f"measured {size:,} characters", file=sys.stderr, flush=True)
    base = rows[0]
    print(
        f"{'size':>10} {'sentences':>9} {'split s':>8} {'x':>5} {'refusal s':>9} {'x':>5} {'evaluate s':>10} {'x':>5}"
    )
    for size, sentences, split_s, refusal_s, evaluate_s in rows:
        evaluate = (
            f"{evaluate_s:>10.1f} {evaluate_s / base[4]:>5.2f}" if evaluate_s and base[4] else f"{'-':>10} {'':>5}"
        )
        print(
            f"{size:>10,} {sentences:>9,} {split_s:>8.1f} {split_s / base[2]:>5.2f} {refusal_s:>9.1f} "
            f"{refusal_s / base[3]:>5.2f} {evaluate}"
        )
    print(f"size ratios: {', '.join(f'x{size / base[0]:g}' for size, *_ in rows)} (linear work grows as these)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
