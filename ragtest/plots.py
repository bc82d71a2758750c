"""The report's plots, drawn with matplotlib and inlined as SVG: nothing to fetch, works from a file:// URL.

Text is drawn as paths (matplotlib's default `svg.fonttype`), so a plot looks the same without any font; the SVG
is written without the XML prolog, DOCTYPE, namespaces, metadata or comments (none is needed inline in HTML), with a
fixed hash salt so the same data gives the same bytes. matplotlib is imported on first use only.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from markupsafe import Markup

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The plots' colours (colour-blind-safe pairs); the report's screenshot test looks for PLOT_BLUE.
PLOT_BLUE = "#1f5fa8"
PLOT_ORANGE = "#d9730d"
GREY = "#888888"
_PANEL_W, _PANEL_H = 2.6, 1.9
_COLUMNS = 4
_BINS = np.linspace(0.0, 1.0, 11)


def _figure(panels: int, height: float = _PANEL_H) -> tuple[Figure, list[Any]]:
    from matplotlib.figure import Figure

    columns = min(_COLUMNS, max(1, panels))
    rows = (panels + columns - 1) // columns
    figure = Figure(figsize=(_PANEL_W * columns, height * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel().tolist()
    for extra in axes[panels:]:
        extra.set_visible(False)
    return figure, axes[:panels]


def to_svg(figure: Figure) -> Markup:
    """The figure as an inline <svg> element (markup the HTML templates insert as it is)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "ragtest", "svg.fonttype": "path"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"\s+xmlns(:\w+)?=\"[^\"]*\"", "", svg, count=3)
    svg = re.sub(r"<metadata>.*?</metadata>\s*|\s*<!--.*?-->", "", svg, flags=re.DOTALL)
    return Markup(svg.replace("xlink:href", "href"))


def _style(axis: Any, title: str) -> None:
    axis.set_title(title, fontsize=9)
    axis.tick_params(labelsize=7)
    for side in ("top", "right"):
        axis.spines[side].set_visible(False)


#: Fewer scored rows than this make no histogram: the report's table already lists them (and a run that plots
#: nothing never imports matplotlib, a second of start-up).
MIN_ROWS_TO_PLOT = 5


def score_distributions(scores: Mapping[str, Sequence[float]]) -> str | None:
    """One histogram per metric of the scored rows (ten bins over [0, 1]), with the mean marked; None when no
    metric has `MIN_ROWS_TO_PLOT` scored rows."""
    metrics = [name for name, values in scores.items() if len(values) >= MIN_ROWS_TO_PLOT]
    if not metrics:
        return None
    figure, axes = _figure(len(metrics))
    for axis, name in zip(axes, metrics, strict=True):
        values = np.asarray(scores[name], dtype=float)
        axis.hist(values, bins=_BINS, color=PLOT_BLUE, edgecolor="white")
        axis.axvline(float(values.mean()), color=PLOT_ORANGE, linewidth=1.5)
        axis.set_xlim(0, 1)
        _style(axis, f"{name} (n={values.size}, mean {values.mean():.2f})")
        axis.set_ylabel("rows", fontsize=7)
    return to_svg(figure)


def _plotted_groups(entry: Mapping[str, Any], min_rows: int) -> list[tuple[str, Mapping[str, Any]]]:
    groups = (entry.get("by_question_type") or {}).items()
    return [(label, e) for label, e in groups if e.get("mean") is not None and (e.get("rows_scored") or 0) >= min_rows]


def means_by_type(summary: Mapping[str, Mapping[str, Any]], min_rows: int) -> str | None:
    """Per metric: the mean and its 95% interval for each question type of at least `min_rows` scored rows; None
    when no metric has two such groups to set side by side (one group's interval is the summary table's)."""
    metrics = [name for name, entry in summary.items() if len(_plotted_groups(entry, min_rows)) > 1]
    if not metrics:
        return None
    figure, axes = _figure(len(metrics), height=_PANEL_H + 0.2)
    for axis, name in zip(axes, metrics, strict=True):
        groups = _plotted_groups(summary[name], min_rows)
        positions = np.arange(len(groups))
        for y, (_, entry) in zip(positions, groups, strict=True):
            low, high = entry.get("ci_low"), entry.get("ci_high")
            if low is not None and high is not None:
                axis.plot([low, high], [y, y], color=PLOT_BLUE, linewidth=2.5, solid_capstyle="butt")
            axis.plot([entry["mean"]], [y], "o", color=PLOT_ORANGE, markersize=5)
        axis.set_yticks(positions, [f"{label} ({e['rows_scored']})" for label, e in groups])
        axis.set_xlim(0, 1)
        axis.set_ylim(-0.6, len(groups) - 0.4)
        _style(axis, name)
    return to_svg(figure)


def before_after(pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]]) -> str | None:
    """Per metric: each row's base score (x) against its new score (y); above the diagonal = better. Rows with the
    same pair of scores share one dot, its area proportional to their number."""
    metrics = [name for name, (base, _) in pairs.items() if len(base)]
    if not metrics:
        return None
    figure, axes = _figure(len(metrics), height=_PANEL_W)
    for axis, name in zip(axes, metrics, strict=True):
        base, new = (np.asarray(v, dtype=float) for v in pairs[name])
        axis.plot([0, 1], [0, 1], color=GREY, linewidth=0.8)
        points, counts = np.unique(np.round(np.column_stack([base, new]), 3), axis=0, return_counts=True)
        x, y = points[:, 0], points[:, 1]
        colours = np.where(y > x, PLOT_BLUE, np.where(y < x, PLOT_ORANGE, GREY))
        axis.scatter(x, y, s=14 * counts, c=colours.tolist(), alpha=0.8, linewidths=0)
        axis.set_xlim(-0.03, 1.03)
        axis.set_ylim(-0.03, 1.03)
        axis.set_xlabel("base", fontsize=7)
        axis.set_ylabel("new", fontsize=7)
        _style(axis, name)
    return to_svg(figure)


def paired_differences(
    pairs: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    intervals: Mapping[str, tuple[float | None, float | None]],
) -> str | None:
    """Per metric: the row-by-row differences (new - base) sorted, with the mean difference and its interval."""
    metrics = [name for name, (base, _) in pairs.items() if len(base)]
    if not metrics:
        return None
    figure, axes = _figure(len(metrics))
    for axis, name in zip(axes, metrics, strict=True):
        base, new = (np.asarray(v, dtype=float) for v in pairs[name])
        differences = np.sort(new - base)
        colours = np.where(differences > 0, PLOT_BLUE, np.where(differences < 0, PLOT_ORANGE, GREY))
        axis.bar(np.arange(differences.size), differences, color=colours.tolist(), width=0.9)
        axis.axhline(0, color=GREY, linewidth=0.8)
        low, high = intervals.get(name, (None, None))
        if low is not None and high is not None:
            axis.axhspan(low, high, color=PLOT_BLUE, alpha=0.12, linewidth=0)
        axis.axhline(float(differences.mean()), color="black", linewidth=1.2)
        axis.set_ylim(-1.05, 1.05)
        axis.set_xticks([])
        axis.set_xlabel("rows, sorted by change", fontsize=7)
        _style(axis, f"{name}: new - base")
    return to_svg(figure)
