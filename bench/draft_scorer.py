"""Would a learned scorer pick better documentation drafts than the tiers? `python -m bench.draft_scorer`.

Trains a logistic regression on the questions read by hand in bench/readings/ (one file left out at a time, so each
file's scores come from a model that never saw it) and prints, per held-out file, how well the score ranks good
drafts (ROC AUC) and how often the drafts it keeps read good; then, pooled over the held-out rounds (every file but
development.jsonl), the precision of tier 0 plus the best-scored share of the later tiers against the tiers alone.

Features: the strategy and tier (`bench.tier_precision.tier_of`), the all-MiniLM-L6-v2 cosine between question,
reference and section heading, lengths, how the reference opens, code in question or reference, the question's
content words found in the reference, and the question's embedding. The scorer is not part of the writer: this
measures whether it would pay (issue 19's precision on unseen documentation).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from bench.tier_precision import READINGS, read_readings, tier_of
from ragtest_core.text import content_tokens

Row = dict[str, str]


def load(folder: Path) -> list[Row]:
    """Every readings file's rows, each with the file it came from."""
    return [{**row, "file": path.stem} for path in sorted(folder.glob("*.jsonl")) for row in read_readings(path)]


def features(rows: list[Row]) -> tuple[Any, Any]:
    """(X, tiers): one row of features per question."""
    from ragtest_core.embeddings import get_embedder

    embedder = get_embedder()
    question = embedder.embed([row["question"] for row in rows])
    reference = embedder.embed([row["reference"] for row in rows])
    heading = embedder.embed([row["section"].split(" > ")[-1] for row in rows])
    strategies = sorted({row["strategy"] for row in rows})
    tiers = np.array([tier_of(row) for row in rows])
    table = []
    for i, row in enumerate(rows):
        asked, said = set(content_tokens(row["question"])), set(content_tokens(row["reference"]))
        table.append(
            [
                *(row["strategy"] == strategy for strategy in strategies),
                *(tiers[i] == tier for tier in (0, 1, 2)),
                question[i] @ reference[i],
                question[i] @ heading[i],
                reference[i] @ heading[i],
                len(row["question"].split()) / 10,
                len(row["reference"].split()) / 30,
                row["reference"].startswith("To "),
                row["reference"].startswith("You "),
                row["reference"].startswith("If "),
                "`" in row["reference"],
                "`" in row["question"],
                len(asked & said) / max(1, len(asked)),
            ]
        )
    return np.hstack([np.array(table, dtype=float), question]), tiers


def held_out_scores(x: Any, good: Any, files: Any, c: float) -> Any:
    """Each row's score from a model trained on every other file."""
    scores = np.zeros(len(good))
    for name in sorted(set(files)):
        test = files == name
        model = LogisticRegression(C=c, max_iter=5000).fit(x[~test], good[~test])
        scores[test] = model.predict_proba(x[test])[:, 1]
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--readings", type=Path, default=READINGS)
    parser.add_argument("--c", type=float, default=0.3, help="inverse regularisation strength")
    args = parser.parse_args(argv)
    rows = load(args.readings)
    x, tiers = features(rows)
    good = np.array([row["reading"] == "good" for row in rows])
    files = np.array([row["file"] for row in rows])
    scores = held_out_scores(x, good, files, args.c)
    for name in sorted(set(files)):
        part = files == name
        kept = part & (scores >= np.quantile(scores[part], 0.3))
        print(
            f"{name:<12} {part.sum():>4} questions  AUC {roc_auc_score(good[part], scores[part]):.2f}  "
            f"good {good[part].mean():.0%}, best-scored 70% {good[kept].mean():.0%}"
        )
    held = files != "development"
    first, later = held & (tiers == 0), held & (tiers > 0)
    print(f"\nheld-out rounds, {held.sum()} questions: all {good[held].mean():.1%}")
    print(f"  tier 0 alone (--max-tier 0): {first.sum()} kept, {good[first].mean():.1%} good")
    print(
        f"  AUC within tier 0 {roc_auc_score(good[first], scores[first]):.2f}, within later tiers "
        f"{roc_auc_score(good[later], scores[later]):.2f}"
    )
    for share in (0.25, 0.5, 0.75, 1.0):
        kept = later & (scores >= np.quantile(scores[later], 1 - share)) if share < 1 else later
        chosen = first | kept
        print(
            f"  tier 0 + best {share:.0%} of later tiers: {chosen.sum()} kept ({chosen.sum() / held.sum():.0%}), "
            f"{good[chosen].mean():.1%} good (later part {good[kept].mean():.1%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
