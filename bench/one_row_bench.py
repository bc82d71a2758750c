"""Start-up: `ragtest evaluate` of one FiQA row with the local judge and `--metrics faithfulness`, whole command.

    python -m bench.one_row_bench [--baseline DIR] [--repeats 3]

Variants, each a fresh process, alternating within every repeat: this checkout with the default (auto) embedding
backend, this checkout with RAGTEST_EMBED_BACKEND=torch, and, with `--baseline DIR` (another checkout, e.g. a git
worktree of main; default $RAGTEST_BASELINE), that checkout. Also the time of `import ragtest.cli` alone. Prints
every run, best/worst per variant, and the per-repeat ratio to the baseline (or to torch without one).
The ONNX export is made (once, into the cache) before timing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))
TARGET_S = 3.0


def timed(cmd: list[str], repo: Path, extra: dict[str, str], cwd: Path) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(repo), **extra}
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {repo}:\n{done.stderr[-2000:]}")
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.one_row_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, default=os.environ.get("RAGTEST_BASELINE"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    variants: dict[str, tuple[Path, dict[str, str]]] = {
        "this checkout (auto backend)": (ROOT, {}),
        "this checkout, torch backend": (ROOT, {"RAGTEST_EMBED_BACKEND": "torch"}),
    }
    if args.baseline:
        variants["baseline " + str(args.baseline)] = (Path(args.baseline), {})
    reference = list(variants)[-1]
    with tempfile.TemporaryDirectory(prefix="one-row-") as tmp:
        work = Path(tmp)
        row = (DATA / "fiqa" / "fiqa.jsonl").read_text(encoding="utf-8").splitlines()[0]
        (work / "one.jsonl").write_text(row + "\n", encoding="utf-8")
        evaluate = [sys.executable, "-m", "ragtest.cli", "--quiet", "evaluate", "--input", "one.jsonl"]
        evaluate += ["--metrics", "faithfulness", "--output", "scored.jsonl"]
        timed(evaluate, ROOT, {}, work)  # the ONNX export, once, outside the timings
        times: dict[str, list[float]] = {name: [] for name in variants}
        imports: list[float] = []
        for repeat in range(max(1, args.repeats)):
            imports.append(timed([sys.executable, "-c", "import ragtest.cli"], ROOT, {}, work))
            for name, (repo, extra) in variants.items():
                times[name].append(timed(evaluate, repo, extra, work))
                print(f"[{repeat}] {name:40s} {times[name][-1]:6.2f} s", flush=True)
    print(f"import ragtest.cli (this checkout): best {min(imports):.2f} s, worst {max(imports):.2f} s")
    for name, values in times.items():
        ratios = [v / r for v, r in zip(values, times[reference], strict=True)]
        print(
            f"{name:40s} best {min(values):6.2f} s, worst {max(values):6.2f} s (target {TARGET_S:.0f} s); "
            f"ratio to {reference}: {', '.join(f'{r:.2f}' for r in ratios)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
