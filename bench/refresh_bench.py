"""`ragtest refresh` on real documentation history: Flask's docs as of 3.0.0 (tests/data/docs/flask-3.0.0 over the
pages that did not change) refreshed onto the shipped ones (3.1), against generating the new set from scratch.

    python -m bench.refresh_bench [--size 40]

Prints the counts by status, how many kept questions are byte-identical to the old ones, and the time of the
refresh and of the generate from scratch, in one run (the embedding cache is warmed first, so neither pays for
embedding the corpus for the first time) and as a ratio.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ragtest.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "tests" / "data" / "docs"


def old_docs(target: Path) -> Path:
    """Flask 3.0.0's pages: the shipped ones where they did not change, the 3.0.0 copies where they did."""
    for page in (DOCS / "flask").rglob("*.rst"):
        relative = page.relative_to(DOCS / "flask")
        if relative.as_posix() in ("web-security.rst", "gevent.rst"):  # new since 3.0.0
            continue
        older = DOCS / "flask-3.0.0" / relative
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(older if older.is_file() else page, target / relative)
    shutil.copyfile(DOCS / "flask-3.0.0" / "security.rst", target / "security.rst")
    return target


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    code = main(["--quiet", *args])
    if code not in (0, 2):
        sys.exit(f"ragtest {args[0]} exited {code}")
    return time.perf_counter() - started


def read(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def bench(size: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        old = old_docs(work / "old")
        new = DOCS / "flask"
        timed(["generate", "--source", str(old), "--size", str(size), "--output", str(work / "o" / "set.jsonl")])
        warm = ["generate", "--source", str(new), "--size", "1", "--output", str(work / "warm" / "set.jsonl")]
        timed(warm)  # the new corpus's vectors into the embedding cache, for both timings below
        fresh = ["generate", "--source", str(new), "--size", str(size), "--output", str(work / "s" / "set.jsonl")]
        scratch = timed(fresh)
        refresh_args = ["refresh", "--testset", str(work / "o" / "set.jsonl"), "--source", str(new)]
        refresh = timed([*refresh_args, "--output", str(work / "r" / "set.jsonl")])
        log = json.loads((work / "r" / "set.changelog.json").read_text(encoding="utf-8"))
        before = {row["sample_id"]: row for row in read(work / "o" / "set.jsonl")}
        after = read(work / "r" / "set.jsonl")
        unchanged = [
            row
            for row in after
            if row.get("refresh_status") in ("kept", "moved")
            and (row["question"], row["ground_truth"]) == (before[str(row["sample_id"])]["question"],
                                                           before[str(row["sample_id"])]["ground_truth"])
        ]  # fmt: skip
        kept = sum(1 for row in unchanged if row["refresh_status"] == "kept")
        print(f"old set: {len(before)} rows; refreshed set: {len(after)} rows")
        print("counts by status:", log["counts"])
        print(f"kept rows with the same question and reference: {kept} of {log['counts']['kept']}")
        print(f"kept or moved rows with the same question and reference: {len(unchanged)} of {len(before)}")
        print("retired:", *(f"  {e['page']}: {e['reason']}" for e in log["retired"]), sep="\n")
        print(f"refresh {refresh:.1f} s, generate from scratch {scratch:.1f} s: ratio {refresh / scratch:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=40)
    bench(parser.parse_args().size)
