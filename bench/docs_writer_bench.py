"""The offline documentation writer on several corpora, for reading: `python -m bench.docs_writer_bench DIR ...
[--size 40] [--out OUT]`.

Runs `ragtest generate --source DIR --size N --offline` on each folder (as a user would) and writes every question
with its strategy, its source page and its reference to OUT/<name>.md, for reading by hand (good / misleading /
useless). When a corpus yields fewer than N questions the run fails as `generate` does (the stop rules, the
shortfall message); the questions it did write are listed all the same, with the shortfall message. Prints per
corpus: questions written, how-to questions, and the accepted and rejected counts by strategy.

Which corpora are development sets and which are held out is the caller's business: see bench.heldout_docs and the
README's documentation-writer notes. Never run it on a held-out corpus before its final measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from ragtest.cli import main as ragtest_main
from ragtest_core.datasets import write_dataset
from ragtest_core.schema import TestSample
from testgen.screening import Candidate


@dataclass(frozen=True)
class Written:
    sample: TestSample
    strategy: str
    section: str


def generate(source: Path, size: int, out: Path) -> tuple[list[Written], dict[str, Any]]:
    """The samples the offline writer wrote from `source` (all of them, also when it fell short), with the
    strategy and the root's section, and the manifest's stats."""
    written: list[Written] = []
    make = Candidate.to_sample

    def keep(candidate: Candidate, *args: Any, **kwargs: Any) -> TestSample:
        sample = make(candidate, *args, **kwargs)
        section = candidate.context.root.heading_path or ""
        written.append(Written(sample, candidate.draft.strategy or "", section))
        return sample

    Candidate.to_sample = keep  # type: ignore[method-assign,assignment]
    try:
        output = out / "testset.jsonl"
        args = ["--quiet", "generate", "--source", str(source), "--size", str(size), "--offline"]
        ragtest_main([*args, "--output", str(output)])
    finally:
        Candidate.to_sample = make  # type: ignore[method-assign]
    manifest = json.loads((out / "testset.manifest.json").read_text(encoding="utf-8"))
    return written, manifest["stats"]


def hit_rate(samples: Sequence[Written], out: Path) -> tuple[float, float | None, float | None]:
    """The reference RAG's hit_rate on the written questions with its 95% interval (`ragtest answer` on the
    generated store, `ragtest evaluate --metrics hit_rate`): (mean, low, high); no interval for one row."""
    written = out / "written.jsonl"
    write_dataset([item.sample.model_dump() for item in samples], written)
    answers, scored = out / "answers.jsonl", out / "scored.jsonl"
    ragtest_main(
        ["--quiet", "answer", "--input", str(written), "--output", str(answers), "--store", str(out / "chroma")]
    )
    ragtest_main(["--quiet", "evaluate", "--input", str(answers), "--metrics", "hit_rate", "--output", str(scored)])
    summary = json.loads((out / "scored.summary.json").read_text(encoding="utf-8"))
    overall = summary["metrics"]["hit_rate"]
    return overall["mean"], overall["ci_low"], overall["ci_high"]


def listing(name: str, samples: Sequence[Written], stats: dict[str, Any], source: Path) -> str:
    generation = stats.get("generation", {})
    lines = [f"# {name}: {len(samples)} questions", ""]
    if stats.get("error"):
        lines += [f"Shortfall: {stats['error']}", ""]
    lines += [
        f"accepted by strategy: {generation.get('accepted_by_strategy')}",
        f"rejections: {generation.get('rejections')}",
        "",
    ]
    for number, item in enumerate(samples, start=1):
        sample = item.sample
        page = str(Path(sample.source).relative_to(source)) if sample.source.startswith(str(source)) else sample.source
        lines.append(f"{number}. [{item.strategy}] {sample.question}  ({page} § {item.section})")
        lines.append(f"   -> {sample.ground_truth}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("sources", nargs="+", type=Path, help="documentation folders")
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--out", type=Path, default=None, help="folder for the listings (default: a temporary one)")
    parser.add_argument("--hit-rate", action="store_true", help="also score the reference RAG's hit_rate")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="docs-writer-"))
    out.mkdir(parents=True, exist_ok=True)
    for source in args.sources:
        name = source.resolve().name
        samples, stats = generate(source.resolve(), args.size, out / name)
        (out / f"{name}.md").write_text(listing(name, samples, stats, source.resolve()), encoding="utf-8")
        howto = sum(1 for s in samples if s.sample.question.startswith("How do you"))
        generation = stats.get("generation", {})
        scored = ""
        if args.hit_rate and samples:
            mean, low, high = hit_rate(samples, out / name)
            interval = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
            scored = f"; hit_rate {mean:.3f}{interval}"
        print(
            f"{name}: {len(samples)}/{args.size} written, {howto} how-to{scored}; "
            f"accepted {generation.get('accepted_by_strategy')}; rejected {generation.get('rejected_by_strategy')}",
            flush=True,
        )
    print(f"listings in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
