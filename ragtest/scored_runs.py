"""Reading two scored runs for `compare`, matching their rows, and refusing runs that cannot be compared.

A side is a run directory or a scored file, with its summary found by the one naming rule of
`ragtest.outputs.locate_scored`; a side without one cannot be checked and is refused unless `allow_different`.
Rows are matched by `sample_id` when both sides have one on every row, else by the question's text
(whitespace-normalised). Two runs are comparable when they hold the same test set (the same rows,
with the same question and reference answer) and were scored under the same judge, judge model, judge settings,
embedding model and precision.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ragtest.outputs import locate_scored
from ragtest_core.datasets import read_dataset, records
from ragtest_core.errors import RagtestError
from ragtest_core.labels import row_key
from ragtest_core.schema import GROUND_TRUTH, QUESTION, REFRESH_STATUS, SAMPLE_ID

#: The scoring settings two runs must share, with the words used to name them.
SCORING_KEYS = {
    "judge": "judge",
    "judge_model": "judge model",
    "judge_settings": "judge settings",
    "embedding_model": "embedding model",
    "embedding_precision": "embedding precision",
    "retrieval_k": "retrieval cut-off (--retrieval-k)",
    "max_field_chars": "size limit per text (max_field_chars)",
}


class IncomparableRunsError(RagtestError):
    """The two runs differ in their test set or their scoring settings (see `allow_different`)."""


@dataclass
class ScoredRun:
    """One side of a comparison: its scored rows and what its summary says about how they were scored."""

    label: str
    path: Path
    frame: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def scoring(self) -> dict[str, Any] | None:
        scoring = self.summary.get("scoring")
        return scoring if isinstance(scoring, dict) else None

    @property
    def metrics(self) -> list[str]:
        """The score columns: as the summary lists them, else every column that has a `<name>_reason` partner."""
        listed = (self.scoring or {}).get("metrics") or list((self.summary.get("metrics") or {}).keys())
        if listed:
            return [m for m in listed if m in self.frame.columns]
        columns = set(map(str, self.frame.columns))
        return [c for c in map(str, self.frame.columns) if f"{c}_reason" in columns]


def _read_summary(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RagtestError(f"{path}: not valid JSON ({exc.msg})") from exc
    return value if isinstance(value, dict) and "metrics" in value else {}


def load_scored(path: str | Path) -> ScoredRun:
    """A run directory or a scored dataset file, with its summary when there is one (`locate_scored`)."""
    paths = locate_scored(path)
    return ScoredRun(
        label=str(path), path=paths.scores, frame=read_dataset(paths.scores), summary=_read_summary(paths.summary)
    )


@dataclass
class Matching:
    """Which rows of the two runs are the same test question."""

    by: str
    pairs: list[tuple[int, int]]
    only_base: list[str]
    only_new: list[str]
    different_rows: list[str]
    #: Two versions of a refreshed test set (rows with `refresh_status`, `ragtest refresh`): `pairs` are the shared
    #: rows (kept and moved), `updated` the rows asked again, paired apart; `versions` counts each kind.
    updated: list[tuple[int, int]] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)


def _keys(frame: pd.DataFrame, by: str) -> list[str]:
    if by == SAMPLE_ID:
        return [row_key(row) for row in records(frame)]
    return [" ".join(str(q).split()) for q in frame[QUESTION]] if QUESTION in frame.columns else []


def _has_ids(frame: pd.DataFrame) -> bool:
    return SAMPLE_ID in frame.columns and all(isinstance(v, str) and v.strip() for v in frame[SAMPLE_ID])


def _describe(frame: pd.DataFrame, index: int) -> str:
    row = frame.iloc[index]
    return str(row.get(QUESTION) or row.get(SAMPLE_ID) or f"row {index}")


def match_rows(base: pd.DataFrame, new: pd.DataFrame) -> Matching:
    """Pair rows by sample_id (both sides have one on every row) or by question text; name the rest. Two versions
    of a refreshed test set (rows differ, and a side says what the refresh did to each): the kept and moved rows are
    the shared ones, the updated rows are set apart."""
    by = SAMPLE_ID if _has_ids(base) and _has_ids(new) else QUESTION
    base_keys, new_keys = _keys(base, by), _keys(new, by)
    for side, keys in (("base", base_keys), ("new", new_keys)):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise RagtestError(f"the {side} run has repeated {by}s, so its rows cannot be matched: {repeated[:3]}")
    new_index, base_set = {key: i for i, key in enumerate(new_keys)}, set(base_keys)
    pairs = [(i, new_index[key]) for i, key in enumerate(base_keys) if key in new_index]
    only_base = [_describe(base, i) for i, key in enumerate(base_keys) if key not in new_index]
    only_new = [_describe(new, j) for j, key in enumerate(new_keys) if key not in base_set]
    differing = [(i, j) for i, j in pairs if _row_text(base.iloc[i]) != _row_text(new.iloc[j])]
    refreshed = next(((side, n) for n, side in ((1, new), (0, base)) if REFRESH_STATUS in side.columns), None)
    updated: list[tuple[int, int]] = []
    versions: dict[str, int] = {}
    if refreshed is not None and (only_base or only_new or differing):
        status = {pair: str(refreshed[0].iloc[pair[refreshed[1]]].get(REFRESH_STATUS) or "") for pair in pairs}
        updated = [pair for pair in pairs if status[pair] == "updated"]
        pairs = [pair for pair in pairs if status[pair] != "updated"]
        counts = Counter(status[pair] for pair in pairs)
        versions = {"shared": len(pairs), "kept": counts["kept"], "moved": counts["moved"], "updated": len(updated)}
        versions |= {"only_base": len(only_base), "only_new": len(only_new)}
    shared = set(pairs)
    different = [_describe(base, i) for i, j in differing if (i, j) in shared]
    return Matching(by, pairs, only_base, only_new, different, updated, versions)


def _row_text(row: pd.Series) -> tuple[str, str]:
    return (" ".join(str(row.get(QUESTION, "")).split()), " ".join(str(row.get(GROUND_TRUTH, "") or "").split()))


def _names(items: Sequence[str]) -> str:
    shown = "; ".join(repr(item[:80]) for item in items[:3])
    return shown + (f"; and {len(items) - 3} more" if len(items) > 3 else "")


def comparability_problems(base: ScoredRun, new: ScoredRun, matching: Matching) -> list[str]:
    """What makes the comparison meaningless: other rows, other scoring settings, or none recorded."""
    problems: list[str] = []
    if (matching.only_base or matching.only_new) and not matching.versions:  # versions: retired and new rows
        problems.append(
            f"different question sets: {len(matching.only_base)} row(s) only in base ({_names(matching.only_base)}), "
            f"{len(matching.only_new)} only in new ({_names(matching.only_new)})"
        )
    if matching.different_rows:
        problems.append(
            f"{len(matching.different_rows)} matched row(s) have a different question or reference answer "
            f"({_names(matching.different_rows)})"
        )
    if not matching.pairs:
        problems.append("no row of one run matches a row of the other")
    if base.scoring is None or new.scoring is None:
        missing = " and ".join(s.label for s in (base, new) if s.scoring is None)
        problems.append(
            f"no scoring settings recorded for {missing} (no summary beside the scored rows): the judge and "
            "embedding model cannot be checked"
        )
        return problems
    for key, words in SCORING_KEYS.items():
        left, right = base.scoring.get(key), new.scoring.get(key)
        if left != right:
            problems.append(f"different {words}: {left!r} in base, {right!r} in new")
    return problems


def check_comparable(base: ScoredRun, new: ScoredRun, matching: Matching, allow_different: bool) -> list[str]:
    """Raise `IncomparableRunsError` naming every difference (unless `allow_different`: then they are notes)."""
    problems = comparability_problems(base, new, matching)
    if problems and not allow_different:
        raise IncomparableRunsError(
            f"cannot compare {base.label} with {new.label}: " + "; ".join(problems) + ". Scores are only comparable "
            "on the same test set scored the same way; --allow-different (allow_different=True) compares the "
            "matched rows anyway."
        )
    return problems
