"""Judge stability (`--repeats N`): every row scored N times by the LLM judge, each repeat its own calls.

A row's score is the mean of its scored repeats (its reason lists them); its spread is max - min. Per metric the
summary gains `stability`: how many rows had two or more scored repeats, the share whose verdict (score >= the
metric's threshold) changed between repeats, the mean and largest spread, and the unstable rows (verdict changed),
largest spread first. The scored file gains `<metric>_repeats` (the N scores) and `<metric>_spread`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragtest_core.schema import MetricResult

#: Unstable rows listed per metric in the summary (all of them are flagged in the scored file).
UNSTABLE_LISTED = 20


def repeats_column(metric: str) -> str:
    return f"{metric}_repeats"


def spread_column(metric: str) -> str:
    return f"{metric}_spread"


def combine(results: Sequence[MetricResult], threshold: float) -> MetricResult:
    """One row's repeats of one metric as one result: the mean of the scored ones (failed when none scored)."""
    values = [r.value for r in results]
    scored = [v for v in values if v is not None]
    if not scored:
        return MetricResult.failed(results[0].reason or "no score", **results[0].details, repeats=values)
    spread = max(scored) - min(scored)
    changed = len({v >= threshold for v in scored}) > 1
    listed = ", ".join("-" if v is None else f"{v:.2f}" for v in values)
    first_reason = next(r.reason for r in results if r.value is not None)
    reason = f"mean of {len(scored)} of {len(values)} repeats ({listed}); first: {first_reason}"
    return MetricResult.ok(float(np.mean(scored)), reason, repeats=values, spread=spread, verdict_changed=changed)


def combine_rows(
    repeats: Sequence[Sequence[dict[str, MetricResult]]], names: Sequence[str], thresholds: dict[str, float]
) -> list[dict[str, MetricResult]]:
    """`repeats[r][i][metric]` -> one combined result per row and metric."""
    return [
        {name: combine([repeat[i][name] for repeat in repeats], thresholds[name]) for name in names}
        for i in range(len(repeats[0]))
    ]


def stability_summary(results: Sequence[dict[str, MetricResult]], metric: str, repeats: int) -> dict[str, Any]:
    """The summary's `stability` entry of one metric over the combined results."""
    spreads, unstable = [], []
    for index, row in enumerate(results):
        details = row[metric].details
        if "spread" not in details or sum(v is not None for v in details.get("repeats") or []) < 2:
            continue
        spreads.append(float(details["spread"]))
        if details.get("verdict_changed"):
            unstable.append({"row": index, "spread": float(details["spread"]), "repeats": details["repeats"]})
    unstable.sort(key=lambda item: -item["spread"])
    return {
        "repeats": repeats,
        "rows": len(spreads),
        "rows_verdict_changed": len(unstable),
        "share_verdict_changed": len(unstable) / len(spreads) if spreads else None,
        "mean_spread": float(np.mean(spreads)) if spreads else None,
        "max_spread": float(np.max(spreads)) if spreads else None,
        "unstable_rows": unstable[:UNSTABLE_LISTED],
    }
