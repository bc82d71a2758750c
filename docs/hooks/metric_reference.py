"""The metrics page's table of definitions, rendered from what the reports print: each registered metric's
`definition` and `scale_note` as its class declares them (`evaluation.registry.metric_explanation`, the function the
report calls beside every score). The docs site's hook (`reference_pages.py`, beside this file) writes it into
docs/metrics.md at build time, so the page and the report cannot drift: a new metric, or a reworded definition, is
on the page the next build. Docs-build tooling, not part of the ragtest package.
"""

from __future__ import annotations

from collections.abc import Iterable

from evaluation.registry import available_metrics, metric_explanation
from ragtest.markdown_text import markdown_inline, markdown_table

HEADER = ("metric", "definition", "how its scale reads", "better")


def render_metric_reference(names: Iterable[str] | None = None) -> str:
    """A Markdown table of `names` (default: every metric registered in this process, by name): each metric's
    definition, its scale note and which way is better, in the words the report prints them."""
    rows = []
    for name in sorted(available_metrics()) if names is None else names:
        explained = metric_explanation(name)
        rows.append(
            [
                f"`{name}`",
                markdown_inline(explained.definition),
                markdown_inline(explained.scale_note),
                "higher" if explained.higher_is_better else "lower",
            ]
        )
    return markdown_table(HEADER, rows) + "\n"
