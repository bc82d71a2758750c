"""The report's "where it failed" panel: which part of the RAG lost the most, read from the claim-level diagnostics
(RAGChecker; `evaluation.claim_diagnostics`) when the run scored them.

Each part is read as a share lost, from the run's means (with their 95% intervals):
- retrieval: reference claims no retrieved context holds (1 - context_claim_recall);
- noise: answer claims that are wrong yet entailed by a retrieved context (noise_sensitivity_relevant +
  noise_sensitivity_irrelevant);
- generator, unused: reference claims the contexts held but the answer left out (1 - context_utilization);
- generator, invented: answer claims that are wrong and in no context (hallucination).
The part with the largest loss is named first. A run without the diagnostics gets no panel. The noise row's interval
adds the two metrics' bounds (wider than the interval of the sum: it never claims more certainty than it has).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: (part, what is lost, metrics, whether the loss is 1 - metric); the diagnostics' names.
PARTS: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("retrieval", "reference claims no retrieved context holds", ("context_claim_recall",), True),
    ("noise", "answer claims that are wrong yet come from a retrieved context",
     ("noise_sensitivity_relevant", "noise_sensitivity_irrelevant"), False),
    ("generator", "reference claims in the contexts that the answer leaves out", ("context_utilization",), True),
    ("generator", "answer claims that are wrong and in no context (hallucination)", ("hallucination",), False),
)  # fmt: skip


def _loss(summary: Mapping[str, Any], metrics: tuple[str, ...], complement: bool) -> dict[str, Any] | None:
    entries = [summary.get(m) or {} for m in metrics]
    if any(e.get("mean") is None for e in entries):
        return None
    mean = sum(float(e["mean"]) for e in entries)
    lows = [e.get("ci_low") for e in entries]
    highs = [e.get("ci_high") for e in entries]
    low = None if None in lows else sum(float(v) for v in lows if v is not None)
    high = None if None in highs else sum(float(v) for v in highs if v is not None)
    if complement:
        mean, low, high = 1.0 - mean, None if high is None else 1.0 - high, None if low is None else 1.0 - low
    rows = min(int(e.get("rows_scored") or 0) for e in entries)
    return {"loss": mean, "ci_low": low, "ci_high": high, "rows": rows}


def where_it_failed(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """The panel's rows (largest loss first) and the weakest part; None when no diagnostic was scored."""
    rows = []
    for part, lost, metrics, complement in PARTS:
        found = _loss(summary, metrics, complement)
        if found is not None:
            rows.append({"part": part, "lost": lost, "metrics": " + ".join(metrics), **found})
    if not rows:
        return None
    rows.sort(key=lambda r: -r["loss"])
    return {"rows": rows, "weakest": rows[0]["part"], "weakest_lost": rows[0]["lost"]}
