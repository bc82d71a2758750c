"""Labelling answers: which rows a labeller sees, in what order, what they see, and how a label is stored.

The order is the stated sampling rule (docs/trust.md): "random" (default), seeded and stratified by question type,
so the first k rows labelled are the random sample prediction-powered intervals need; or "least_sure", the judge's
least sure rows first, no random sample, so those labels (`selection` says how a row was chosen) count for agreement
and are left out of PPI. Two labellers walk the same order, so the rows both labelled give their agreement. The
judge's scores and reasons never reach the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.registry import metric_threshold
from evaluation.scores import context_precision_score
from evaluation.stability import spread_column
from ragtest_core.datasets import as_str_list, read_rows
from ragtest_core.errors import RagtestError
from ragtest_core.labels import (
    ANSWER_ID,
    CHOICES,
    LABELLER,
    NOTE,
    RANDOM,
    RELEVANT_CONTEXTS,
    SELECTION,
    SELECTIONS,
    LabelStore,
    answer_id,
    labelled_metrics,
    row_key,
)
from ragtest_core.schema import ANSWER, CONTEXTS, GROUND_TRUTH, QUESTION, QUESTION_TYPE, SAMPLE_ID

#: The metrics a labeller marks; context precision comes from the contexts marked relevant (RAGAS' formula).
FAITHFULNESS, CORRECTNESS, PRECISION = "faithfulness", "answer_correctness", "context_precision"
#: The judge's metrics whose closeness to their threshold decides "least sure".
SURE_METRICS = (FAITHFULNESS, CORRECTNESS, PRECISION, "answer_relevancy", "context_recall")


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


def stratified_order(types: Sequence[str], seed: int) -> list[int]:
    """Row indexes in seeded random order, the question types interleaved in proportion to their size."""
    rng = np.random.default_rng(seed)
    keyed: list[tuple[float, float, int]] = []
    for kind in dict.fromkeys(types):  # the types in the order they first occur
        members = [index for index, other in enumerate(types) if other == kind]
        shuffled = [members[i] for i in rng.permutation(len(members))]
        offset = rng.random()
        keyed += [((rank + offset) / len(shuffled), rng.random(), index) for rank, index in enumerate(shuffled)]
    return [index for _, _, index in sorted(keyed)]


def unsureness(row: Mapping[str, Any]) -> float | None:
    """How unsure the judge was on a row: the largest spread of its repeats, else minus the mean distance of
    its scores from their thresholds (higher: less sure); None when the row has no score."""
    spreads = [s for m in SURE_METRICS if (s := _number(row.get(spread_column(m)))) is not None]
    distances = [abs(v - metric_threshold(m)) for m in SURE_METRICS if (v := _number(row.get(m))) is not None]
    return max(spreads, default=0.0) - float(np.mean(distances)) if distances else None


def least_sure_order(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Rows from the least sure to the surest; rows without a score last, in file order."""
    unsure = [unsureness(row) for row in rows]
    return sorted(range(len(rows)), key=lambda i: (unsure[i] is None, -(unsure[i] or 0.0), i))


class Labelling:
    """The rows of a run to label, their order, and the labels file."""

    def __init__(
        self, rows_file: Path, labels_file: Path, rule: str = RANDOM, seed: int = 0, limit: int | None = None
    ) -> None:
        if rule not in SELECTIONS:
            raise RagtestError(f"the sampling rule must be one of {', '.join(SELECTIONS)}, got {rule!r}")
        self.rows_file = rows_file
        self.rows = read_rows(rows_file)
        if not self.rows or ANSWER not in self.rows[0]:
            raise RagtestError(f"{rows_file} has no answers to label (answer the test set first)")
        self.keys = [row_key(row) for row in self.rows]
        self.rule, self.seed = rule, seed
        types = [str(row.get(QUESTION_TYPE) or "(none)") for row in self.rows]
        order = stratified_order(types, seed) if rule == RANDOM else least_sure_order(self.rows)
        self.order = order[:limit] if limit else order
        self.store = LabelStore(labels_file)

    def rule_text(self) -> str:
        if self.rule == RANDOM:
            return (
                f"seeded random order (seed {self.seed}), stratified by question type: the first rows you label are "
                "a random sample with each type's share of the run, as prediction-powered intervals need"
            )
        return (
            "least sure first: the rows whose judge scores lie closest to their thresholds (or whose repeats "
            "spread most); these labels measure agreement but are no random sample, so PPI leaves them out"
        )

    def next_position(self, labeller: str) -> int | None:
        """The first place in the order that `labeller` has neither labelled nor skipped (None: all done)."""
        done = self.store.labelled(labeller)
        return next((p for p, i in enumerate(self.order) if self.keys[i] not in done), None)

    def _given(self, labeller: str) -> list[dict[str, Any]]:
        """`labeller`'s rows of the labels file for the rows of this order (labels and skips)."""
        keys = {self.keys[i] for i in self.order}
        return [row for row in self.store.rows() if row[LABELLER] == labeller and row[SAMPLE_ID] in keys]

    def progress(self, labeller: str) -> tuple[int, int]:
        """(rows `labeller` labelled, rows in the order). A skipped row holds no label and is not counted."""
        return sum(1 for row in self._given(labeller) if is_label(row)), len(self.order)

    def skipped(self, labeller: str) -> int:
        """The rows of the order that `labeller` skipped (passed over without a label)."""
        return sum(1 for row in self._given(labeller) if not is_label(row))

    def _at(self, position: int) -> tuple[dict[str, Any], str]:
        """The row at `position` of the order, and its key."""
        if not 0 <= position < len(self.order):
            raise RagtestError(f"no row at position {position}")
        return self.rows[self.order[position]], self.keys[self.order[position]]

    def view(self, position: int, labeller: str) -> dict[str, Any]:
        """What the page shows for the row at `position`: never a score or a judge's reason."""
        row, key = self._at(position)
        given = self.store.get(key, labeller) or {}
        contexts = as_str_list(row.get(CONTEXTS))
        return {
            "position": position,
            "key": key,
            **{column: str(row.get(column) or "") for column in (QUESTION, GROUND_TRUTH, ANSWER, QUESTION_TYPE)},
            "contexts": contexts,
            "has_reference": bool(row.get(GROUND_TRUTH)),
            "given": {
                FAITHFULNESS: given.get(FAITHFULNESS),
                CORRECTNESS: given.get(CORRECTNESS),
                RELEVANT_CONTEXTS: given.get(RELEVANT_CONTEXTS) or [False] * len(contexts),
            },
        }

    def save(self, position: int, labeller: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """Store one labeller's labels of the row at `position` (or a skip), with how the row was chosen."""
        labeller = " ".join(str(labeller).split())
        if not labeller:
            raise RagtestError("a label needs the labeller's name")
        row, key = self._at(position)
        if str(given.get("key") or "") != key:
            raise RagtestError("the row changed under the page: reload it")
        label: dict[str, Any] = {SAMPLE_ID: key, LABELLER: labeller, SELECTION: self.rule, ANSWER_ID: answer_id(row)}
        if given.get("skip"):
            return self.store.put({**label, NOTE: "skipped"})
        for metric in (FAITHFULNESS, CORRECTNESS):
            value = given.get(metric)
            if value is not None and value not in CHOICES:
                raise RagtestError(f"{metric} must be one of {', '.join(CHOICES)}, got {value!r}")
            label[metric] = CHOICES[value] if value is not None else None
        if label[FAITHFULNESS] is None:
            raise RagtestError("mark faithfulness (yes, partly or no) before saving")
        contexts = as_str_list(row.get(CONTEXTS))
        marks = [bool(v) for v in (given.get(RELEVANT_CONTEXTS) or [])][: len(contexts)]
        marks += [False] * (len(contexts) - len(marks))
        label[RELEVANT_CONTEXTS] = marks
        label[PRECISION] = context_precision_score(marks).value if contexts else None
        return self.store.put(label)


def is_label(row: Mapping[str, Any]) -> bool:
    """True when a row of the labels file gives some metric a value; a skip (`note: skipped`) gives none."""
    return bool(labelled_metrics([row]))
