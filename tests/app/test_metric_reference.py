"""The docs' table of metric definitions is rendered from the metric classes' own declarations
(docs/hooks/metric_reference.py, written into docs/metrics.md by the MkDocs hook): every registered metric is on it with
the definition and scale note the report prints beside its score, and a metric registered the way a user registers
one is on it too. The site build with it is in tests/app/test_cli_reference.py."""

from __future__ import annotations

from typing import ClassVar

from metric_reference import render_metric_reference

from evaluation import JudgeFreeMetric, register_metric, unregister_metric
from evaluation.metric import NO_DEFINITION
from evaluation.registry import available_metrics, metric_explanation
from evaluation.sample import Sample
from ragtest.markdown_text import markdown_inline
from ragtest_core.schema import MetricResult


class WobbleMetric(JudgeFreeMetric):
    """A team's own metric, declared as every metric is."""

    name: ClassVar[str] = "wobble_score"
    definition: ClassVar[str] = "How far the answer wobbles | between <two> readings."
    scale_note: ClassVar[str] = "No judge: 1 = steady."
    higher_is_better: ClassVar[bool] = False

    def compute(self, sample: Sample) -> MetricResult:
        return MetricResult.ok(1.0, "steady")


def row_of(page: str, name: str) -> str:
    [row] = [line for line in page.splitlines() if line.startswith(f"| `{name}` |")]
    return row


def test_every_registered_metric_is_on_the_table_in_the_reports_words() -> None:
    page = render_metric_reference()
    assert page.startswith("| metric | definition | how its scale reads | better |\n|---|---|---|---|\n")
    for name in available_metrics():
        explained = metric_explanation(name)
        assert explained.defined, name
        row = row_of(page, name)
        assert markdown_inline(explained.definition) in row and markdown_inline(explained.scale_note) in row
        assert row.count(" | ") == 3, row  # four cells: no pipe of the text splits one
    assert row_of(page, "hallucination").endswith("| lower |") and row_of(page, "faithfulness").endswith("| higher |")


def test_a_metric_registered_later_is_on_the_next_rendering() -> None:
    assert "wobble_score" not in render_metric_reference()
    register_metric(WobbleMetric)
    try:
        page = render_metric_reference()
    finally:
        unregister_metric("wobble_score")
    row = row_of(page, "wobble_score")
    cells = ["`wobble_score`", "How far the answer wobbles \\| between &lt;two> readings.", "No judge: 1 = steady."]
    assert row == "| " + " | ".join([*cells, "lower"]) + " |"
    assert "wobble_score" not in render_metric_reference()


def test_a_name_not_registered_here_says_so() -> None:
    row = row_of(render_metric_reference(["not_a_metric"]), "not_a_metric")
    assert row == f"| `not_a_metric` | {NO_DEFINITION} |   | higher |"
