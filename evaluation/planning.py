"""The judge calls an LLM-judged evaluation will make, planned by the metrics themselves (for `--dry-run`).

Each metric's `llm_prompts(sample)` returns the calls its `score_llm` makes, built by the same functions; rows
that `rag_failure` or `precheck` decide without a judge make none, as in `evaluate_dataset`. A prompt is sent once
per run (the judge shares statements and identical calls between metrics), so it is planned once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from evaluation.metric import Metric
from evaluation.registry import resolve_metrics
from evaluation.sample import Sample
from ragtest_core.datasets import records
from ragtest_core.llm.plan import PlannedCall


def plan_llm_calls(
    data: pd.DataFrame | Iterable[Mapping[str, Any] | Sample], metrics: object = None
) -> list[PlannedCall]:
    """Every LLM-judge call `evaluate_dataset(data, judge="llm", metrics=metrics)` makes, row by row.

    `data` is a frame, or rows (mappings with the dataset columns) or `Sample`s; `metrics` is what
    `evaluate_dataset` accepts (None: the default metrics). Calls that depend on an earlier reply are planned
    with typical stand-ins (see `Metric.llm_prompts`)."""
    selected: list[Metric] = resolve_metrics(metrics)
    rows: Iterable[Mapping[str, Any] | Sample] = records(data) if isinstance(data, pd.DataFrame) else data
    calls: dict[tuple[str, object], PlannedCall] = {}
    for row in rows:
        sample = row if isinstance(row, Sample) else Sample.from_row(row)
        for metric in selected:
            if metric.rag_failure(sample) is None and metric.precheck(sample) is None:
                for call in metric.llm_prompts(sample):
                    calls.setdefault((call.text(), call.schema), call)
    return list(calls.values())
