"""The report's trust section: each labelled metric's prediction-powered mean beside the judge's own, and the
LLM judge's stability under `--repeats` with the unstable rows flagged, and what the prediction-powered means correct
(`ragtest.report_explain.PPI_CORRECTS`). Rendered by `panels/trust.html.j2` and `panels/trust.md.j2`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragtest.report_explain import PPI_CORRECTS
from ragtest_core.datasets import records

UNSTABLE_SHOWN = 10


def ppi_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per metric with labels: judge mean and interval, PPI mean and interval, labels alone, n."""
    rows = []
    for metric, entry in summary.items():
        ppi = entry.get("ppi")
        if not ppi:
            continue
        labels_only = ppi.get("labels_only") or {}
        rows.append(
            {
                "metric": metric,
                "judge_mean": entry.get("mean"),
                "judge_low": entry.get("ci_low"),
                "judge_high": entry.get("ci_high"),
                "mean": ppi.get("mean"),
                "low": ppi.get("ci_low"),
                "high": ppi.get("ci_high"),
                "labels_mean": labels_only.get("mean"),
                "labels_low": labels_only.get("ci_low"),
                "labels_high": labels_only.get("ci_high"),
                "n_labels": ppi.get("n_labels", 0),
                "lam": ppi.get("lam"),
                "judge_bias": ppi.get("judge_bias"),
                "note": ppi.get("note", ""),
            }
        )
    return rows


def stability_rows(frame: pd.DataFrame, summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per metric scored with --repeats, with its most unstable rows (question and each repeat's score)."""
    rows = records(frame)
    found = []
    for metric, entry in summary.items():
        stability = entry.get("stability")
        if not stability:
            continue
        unstable = [
            {
                "question": str(rows[item["row"]].get("question") or "") if item["row"] < len(rows) else "",
                "repeats": item["repeats"],
                "spread": item["spread"],
            }
            for item in stability.get("unstable_rows") or []
        ]
        found.append({"metric": metric, **stability, "unstable": unstable[:UNSTABLE_SHOWN]})
    return found


def trust_context(frame: pd.DataFrame, document: Mapping[str, Any]) -> dict[str, Any]:
    summary = document.get("metrics") or {}
    return {
        "labels": document.get("labels"),
        "ppi": ppi_rows(summary),
        "ppi_corrects": PPI_CORRECTS,
        "stability": stability_rows(frame, summary),
    }
