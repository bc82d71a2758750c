"""The run report's panels, in the order the page shows them. A panel is a function of the run (`RunData`) that
returns its template's context (or None to leave it out) and two templates, `templates/panels/<name>.html.j2` and
`<name>.md.j2`, which read that context as `p`. Adding a panel is one function, two templates and one line in
`RUN_PANELS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from evaluation.registry import metric_explanation
from ragtest import plots
from ragtest.breakdowns import Breakdown, breakdown, hops_breakdown, min_group_rows, short_labels, style_breakdown
from ragtest.report_explain import JUDGE_SETTINGS_ID, PPI_CORRECTS, ROWS_TO_LOOK_AT, TESTSET_ID
from ragtest.report_rows import WeakRows, anchor, row_view, scores, section_anchor, turned, weak_rows
from ragtest.weak_spots import SPOTS, WeakSpot, weak_spots
from ragtest_core.datasets import cell_text
from ragtest_core.schema import PERSONA, QUERY_LENGTH, QUESTION_TYPE, SOURCE

#: Rows shown in full per metric (the rest are counted and named by row number).
SHOWN_ROWS = 10
#: Rows linked from each weak spot.
SPOT_LINKS = 5
#: A metric's rows whose repeated scores spread most, shown in the trust panel.
UNSTABLE_SHOWN = 10


@dataclass
class RunData:
    """What every panel reads: the scored rows, the summary document, the run's stats and timings, and what
    several panels share (each metric's rows to look at, the weak spots), computed once."""

    frame: pd.DataFrame
    document: Mapping[str, Any]
    stats: Mapping[str, Any]
    timings: Mapping[str, float]

    @property
    def summary(self) -> dict[str, Any]:
        return dict(self.document.get("metrics") or {})

    @property
    def metrics(self) -> list[str]:
        return [m for m in self.summary if m in self.frame.columns]

    @cached_property
    def sources(self) -> dict[str, str]:
        """Each source as the page names it (without the folder every source shares)."""
        if SOURCE not in self.frame.columns:
            return {}
        return short_labels(sorted({str(v) for v in self.frame[SOURCE] if isinstance(v, str) and v}))

    @cached_property
    def weak(self) -> dict[str, WeakRows]:
        return {metric: weak_rows(self.frame, metric) for metric in self.metrics}

    @cached_property
    def spots(self) -> list[WeakSpot]:
        return weak_spots(self.frame, self.metrics)

    def spot_rows(self, spot: WeakSpot) -> tuple[str, list[int]]:
        """The metric a spot is weakest on and its rows to look at inside the spot, weakest first."""
        metric = spot.findings[0].metric
        inside = set(spot.positions)
        return metric, [i for i in self.weak[metric].positions if i in inside]

    @cached_property
    def shown(self) -> dict[str, list[int]]:
        """Per metric, the rows shown in full: the first `SHOWN_ROWS` and every row a weak spot links to."""
        linked: dict[str, set[int]] = {metric: set() for metric in self.metrics}
        for spot in self.spots[:SPOTS]:
            metric, rows = self.spot_rows(spot)
            linked[metric].update(rows[:SPOT_LINKS])
        return {
            metric: [i for n, i in enumerate(weak.positions) if n < SHOWN_ROWS or i in linked[metric]]
            for metric, weak in self.weak.items()
        }


def weak_spots_panel(run: RunData) -> dict[str, Any]:
    """Where the run is weakest: the groups below the rest of the run, with links to their rows."""
    spots = []
    for spot in run.spots[:SPOTS]:
        metric, rows = run.spot_rows(spot)
        spots.append(
            {
                "grouping": spot.grouping,
                "labels": [run.sources.get(label, label) for label in spot.labels],
                "rows": len(spot.positions),
                "findings": spot.findings,
                "metric": metric,
                "section": section_anchor(metric),
                "links": [
                    {
                        "anchor": anchor(metric, i),
                        "number": i + 1,
                        "question": cell_text(run.frame.iloc[i].get("question")),
                    }
                    for i in rows[:SPOT_LINKS]
                ],
                "more": max(0, len(rows) - SPOT_LINKS),
            }
        )
    return {
        "spots": spots,
        "more": max(0, len(run.spots) - SPOTS),
        "min_rows": min_group_rows(),
        "rows": len(run.frame),
    }


def scores_panel(run: RunData) -> dict[str, Any]:
    """Per metric: its definition and scale, mean and interval, rows scored and failed, the rows to look at."""
    return {
        "summary": run.summary,
        "explained": {name: metric_explanation(name) for name in run.summary},
        "weak": {
            metric: {"text": w.describe(), "count": w.count, "line": w.line_note()} for metric, w in run.weak.items()
        },
        "rows_rule": ROWS_TO_LOOK_AT,
        "anchors": {metric: section_anchor(metric) for metric in run.metrics},
        "failures": any(entry.get("rows_failed") for entry in run.summary.values()),
    }


def facts_panel(run: RunData) -> dict[str, Any]:
    """How the run was made: the test set and judge settings ids, adapter, judge, models, seed, metrics, warnings."""
    return {
        "scoring": run.document.get("scoring") or {},
        "run": run.document.get("run") or {},
        "testset": run.document.get("testset") or {},
        "ids": {"testset": TESTSET_ID, "judge": JUDGE_SETTINGS_ID},
        "metrics": list(run.summary),
    }


def plots_panel(run: RunData) -> dict[str, Any] | None:
    """The inline SVG plots: score distributions and means by question type."""
    distributions = plots.score_distributions({m: scores(run.frame, m).dropna().tolist() for m in run.summary})
    by_type = plots.means_by_type(run.summary, min_group_rows())
    return {"distributions": distributions, "by_type": by_type} if distributions or by_type else None


def breakdowns_panel(run: RunData) -> dict[str, Any] | None:
    """By question type, source, hops, persona, query style (against "perfect") and length, where the set has them:
    short tables (small groups pooled), the full ones folded."""
    tables: list[Breakdown] = [
        table
        for table in (
            breakdown(run.frame, run.metrics, QUESTION_TYPE, "question type", "question types"),
            breakdown(run.frame, run.metrics, SOURCE, "source document", "sources"),
            hops_breakdown(run.frame, run.metrics),
            breakdown(run.frame, run.metrics, PERSONA, "persona", "personas"),
            style_breakdown(run.frame, run.metrics),
            breakdown(run.frame, run.metrics, QUERY_LENGTH, "query length", "query lengths"),
        )
        if table is not None
    ]
    return {"tables": tables, "min_rows": min_group_rows()} if tables else None


def weak_rows_panel(run: RunData) -> dict[str, Any] | None:
    """Per metric, folded: its rows to look at in full (`row_view`), then the rest by row number."""
    sections = []
    for metric, weak in run.weak.items():
        shown = run.shown[metric]
        rest = [i + 1 for i in weak.positions if i not in set(shown)]
        sections.append(
            {
                "metric": metric,
                "anchor": section_anchor(metric),
                "weak": weak,
                "rows": [row_view(run.frame, i, metric, run.sources) for i in shown],
                "rest": rest,
            }
        )
    return {"sections": sections, "rows_rule": ROWS_TO_LOOK_AT} if sections else None


def timings_panel(run: RunData) -> dict[str, Any] | None:
    """Seconds per stage, folded."""
    if not run.timings:
        return None
    total = run.timings.get("total", sum(run.timings.values()))
    return {"timings": {k: v for k, v in run.timings.items() if k != "total"}, "total": total}


#: (part, what is lost, metrics, whether the loss is 1 - metric); the diagnostics' names.
PARTS: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    ("retrieval", "reference claims no retrieved context holds", ("context_claim_recall",), True),
    ("noise", "answer claims that are wrong yet come from a retrieved context",
     ("noise_sensitivity_relevant", "noise_sensitivity_irrelevant"), False),
    ("generator", "reference claims in the contexts that the answer leaves out", ("context_utilization",), True),
    ("generator", "answer claims that are wrong and in no context (hallucination)", ("hallucination",), False),
)  # fmt: skip


def _loss(summary: Mapping[str, Any], metrics: tuple[str, ...], complement: bool) -> dict[str, Any] | None:
    """A part's share lost with its interval; a part of two metrics (noise) adds their bounds: wider than the
    interval of the sum, it never claims more certainty than it has."""
    entries = [summary.get(m) or {} for m in metrics]
    if any(e.get("mean") is None for e in entries):
        return None
    mean = sum(float(e["mean"]) for e in entries)
    lows = [e.get("ci_low") for e in entries]
    highs = [e.get("ci_high") for e in entries]
    low = None if None in lows else sum(float(v) for v in lows if v is not None)
    high = None if None in highs else sum(float(v) for v in highs if v is not None)
    if complement:
        mean, (low, high) = 1.0 - mean, turned(low, high)
    rows = min(int(e.get("rows_scored") or 0) for e in entries)
    return {"loss": mean, "ci_low": low, "ci_high": high, "rows": rows}


def where_it_failed(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """The "where it failed" panel: which part of the RAG lost the most, read from the claim-level diagnostics
    (RAGChecker; `evaluation.claim_diagnostics`) when the run scored them: its rows (largest loss first) and the
    weakest part; None when no diagnostic was scored (see `PARTS`)."""
    rows = []
    for part, lost, metrics, complement in PARTS:
        found = _loss(summary, metrics, complement)
        if found is not None:
            rows.append({"part": part, "lost": lost, "metrics": " + ".join(metrics), **found})
    if not rows:
        return None
    rows.sort(key=lambda r: -r["loss"])
    return {"rows": rows, "weakest": rows[0]["part"], "weakest_lost": rows[0]["lost"]}


def ppi_rows(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per metric with labels: its `ppi` entry (mean, ci_low, ci_high, n_labels, judge_bias, note and the
    labels' own mean and interval, `labels_only`) and the judge's summary entry (`judge`)."""
    blank = {"judge_bias": None, "note": "", "labels_only": {"mean": None, "ci_low": None, "ci_high": None}}
    return [{**blank, **e["ppi"], "metric": m, "judge": e} for m, e in summary.items() if e.get("ppi")]


def stability_rows(frame: pd.DataFrame, summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per metric scored with --repeats, with its most unstable rows (question and each repeat's score)."""
    questions = [cell_text(q) for q in frame["question"]] if "question" in frame.columns else []
    found = []
    for metric, entry in summary.items():
        if stability := entry.get("stability"):
            rows = (stability.get("unstable_rows") or [])[:UNSTABLE_SHOWN]
            unstable = [{**r, "question": questions[r["row"]] if r["row"] < len(questions) else ""} for r in rows]
            found.append({"metric": metric, **stability, "unstable": unstable})
    return found


def graph_panel(stats: Mapping[str, Any]) -> dict[str, Any] | None:
    """The corpus graph's summary from the manifest (`testgen.graph`), page paths shortened."""
    summary = stats.get("corpus_graph")
    if not summary:
        return None
    pairs = summary.get("pages_joined") or []
    shown = short_labels(sorted({page for row in pairs for page in row["pages"]}))
    joined = [{"pages": [shown[page] for page in row["pages"]], "edges": row["edges"]} for row in pairs]
    return {**summary, "pages_joined": joined}


def trust_panel(run: RunData) -> dict[str, Any] | None:
    """With human labels, each labelled metric's prediction-powered mean beside the judge's own, and what it corrects
    (`PPI_CORRECTS`); with --repeats, the LLM judge's stability, its unstable rows flagged."""
    ppi, stability = ppi_rows(run.summary), stability_rows(run.frame, run.summary)
    if not ppi and not stability:
        return None
    return {"labels": run.document.get("labels"), "ppi": ppi, "ppi_corrects": PPI_CORRECTS, "stability": stability}


#: The panels in page order: name -> its context (templates/panels/<name>.html.j2 and .md.j2 render it).
RUN_PANELS: dict[str, Callable[[RunData], Mapping[str, Any] | None]] = {
    "weak_spots": weak_spots_panel,
    "scores": scores_panel,
    "where_it_failed": lambda run: where_it_failed(run.summary),
    "trust": trust_panel,
    "facts": facts_panel,
    "plots": plots_panel,
    "breakdowns": breakdowns_panel,
    "corpus_graph": lambda run: graph_panel(run.stats),
    "weak_rows": weak_rows_panel,
    "timings": timings_panel,
}


def build_panels(run: RunData) -> list[dict[str, Any]]:
    """Each panel's templates and context, in order, leaving out the panels with nothing to show."""
    contexts = {name: build(run) for name, build in RUN_PANELS.items()}
    return [
        {"name": name, "html": f"panels/{name}.html.j2", "md": f"panels/{name}.md.j2", "context": context}
        for name, context in contexts.items()
        if context is not None
    ]
