"""How often each tier of the offline documentation writer reads good, from questions read by hand:
`python -m bench.tier_precision [READINGS.jsonl ...]` (default: every file in bench/readings/).

A readings file has one question a line: the corpus (`name==version`, fetched by `bench.heldout_docs`), the offline
writer's strategy, the question, its reference, page and section, and the reading (good / misleading / useless: a
user would ask it, it makes sense alone, the reference answers it). The tier of each question is recomputed with
the current rules (`testgen.writers.docs.tiers.draft_tier`), so a change of the rules shows what it would have moved.
Prints, per file, the share read good by tier and by strategy, with Wilson 95% intervals.

bench/readings/development.jsonl holds the pools of three development corpora (pytest, sphinx, scrapy) the tier
rules were chosen on: in-sample. bench/readings/round18.jsonl holds the held-out eighteenth round, read after the
rules were fixed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from scipy.stats import binomtest

from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.tiers import SENTENCE_TIER, draft_tier

READINGS = Path(__file__).with_name("readings")


def read_readings(path: Path) -> list[dict[str, str]]:
    """One readings file: a question read by hand a line."""
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]


def tier_of(row: dict[str, str]) -> int:
    if row["strategy"] == "sentence":
        return SENTENCE_TIER
    return draft_tier(DocFact(row["question"], row["reference"], row["reference"], row["strategy"]))


def shares(rows: list[dict[str, str]], key: str) -> dict[str, tuple[int, int]]:
    good: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row in rows:
        group = str(tier_of(row)) if key == "tier" else row[key]
        total[group] += 1
        good[group] += row["reading"] == "good"
    return {group: (good[group], total[group]) for group in sorted(total)}


def line(label: str, good: int, total: int) -> str:
    interval = binomtest(good, total).proportion_ci(method="wilson")
    return f"  {label:<22} {good:>4}/{total:<4} {good / total:6.1%}  [{interval.low:.0%}, {interval.high:.0%}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    for path in args.files or sorted(READINGS.glob("*.jsonl")):
        rows = read_readings(path)
        good = sum(row["reading"] == "good" for row in rows)
        print(path.name)
        print(line("all", good, len(rows)))
        for key in ("tier", "strategy"):
            for group, (g, n) in shares(rows, key).items():
                print(line(f"{key} {group}", g, n))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
