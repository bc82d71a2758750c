"""The offline writer's questions on the development corpora, to show that a change keeps them:
`python -m bench.question_snapshot write OUT` writes OUT/<corpus>.tsv (question, reference, type) for the seven
Wikipedia articles and the httpx and flask documentation of ../shared/data; `python -m bench.question_snapshot diff A B`
prints, per corpus, the questions only one side wrote. Run `write` before and after a change and `diff` the two.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from ragtest.cli import main as ragtest_main
from ragtest_core.datasets import read_dataset

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))
ARTICLES = (
    "Python (programming language)", "Java (programming language)", "Brown bear", "Polar bear",
    "Machine learning", "Deep learning", "Artificial intelligence",
)  # fmt: skip
WIKI = str(DATA / "wikipedia")
#: corpus name -> the `ragtest generate` arguments after --output.
CORPORA: dict[str, list[str]] = {
    **{
        title.split(" (")[0].replace(" ", "_"): ["--topic", title, "--wiki-cache", WIKI, "--size", "20"]
        for title in ARTICLES
    },
    "httpx": ["--source", str(DATA / "docs" / "httpx"), "--size", "40"],
    "flask": ["--source", str(DATA / "docs" / "flask"), "--size", "60"],
}
FIELDS = ("question", "ground_truth", "question_type")


def write(out: Path, names: Sequence[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            testset = Path(tmp) / "testset.jsonl"
            code = ragtest_main(["--quiet", "generate", "--output", str(testset), *CORPORA[name], "--offline",
                                 "--seed", "42"])  # fmt: skip
            rows = read_dataset(testset).to_dict("records") if testset.exists() else []
        with (out / f"{name}.tsv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(FIELDS)
            writer.writerows([str(row.get(field, "")) for field in FIELDS] for row in rows)
        print(f"{name}: {len(rows)} questions (exit {code})", flush=True)


def _read(path: Path) -> list[tuple[str, ...]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return [tuple(row) for row in list(csv.reader(handle, delimiter="\t"))[1:]]


def diff(before: Path, after: Path) -> int:
    changed = 0
    for name in CORPORA:
        old, new = _read(before / f"{name}.tsv"), _read(after / f"{name}.tsv")
        gone, added = [r for r in old if r not in new], [r for r in new if r not in old]
        print(f"{name}: {len(old)} before, {len(new)} after, {len(gone)} gone, {len(added)} new")
        for row in gone:
            print(f"  - {row[0]}  ->  {row[1]}")
        for row in added:
            print(f"  + {row[0]}  ->  {row[1]}")
        changed += len(gone) + len(added)
    return 1 if changed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.question_snapshot", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write")
    writing.add_argument("out", type=Path)
    writing.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="default: every corpus")
    diffing = commands.add_parser("diff")
    diffing.add_argument("before", type=Path)
    diffing.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        write(args.out, args.corpus or list(CORPORA))
        return 0
    return diff(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
