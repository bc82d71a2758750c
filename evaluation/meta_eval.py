"""Meta-evaluation on WikiEval: how often a judge agrees with human preferences (the RAGAS paper's Table 1).

    from evaluation.meta_eval import run_wikieval, format_table
    print(format_table(run_wikieval("tests/data/wikieval/wikieval.jsonl")))        # local judge

On the command line: `ragtest meta-eval --wikieval tests/data/wikieval/wikieval.jsonl [--judge llm --llm SPEC]`.

WikiEval (Es et al. 2023): 50 questions, each with human preferences: faithfulness prefers `answer` over
`ungrounded_answer` (given context_v1); answer relevance prefers `answer` over `poor_answer`; context relevance
prefers `context_v1` over `context_v2`. Agreement is the pairwise accuracy (tie = 1/2). Each side of a pairing is
scored in its own run, as a team scores two variants of its RAG (the local judge's scores do not depend on the
other rows of a run anyway: no statistic is taken over the batch).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from evaluation.engine import evaluate_dataset
from evaluation.label_stats import pairwise_accuracy
from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError

if TYPE_CHECKING:  # annotations only: the client module imports LangChain's chat models (seconds)
    from ragtest_core.llm.client import LLMClient


@dataclass(frozen=True)
class Pairing:
    label: str
    metric: str
    preferred: tuple[str, str]  # (answer column, contexts column)
    other: tuple[str, str]


PAIRINGS: tuple[Pairing, ...] = (
    Pairing("faithfulness", "faithfulness", ("answer", "context_v1"), ("ungrounded_answer", "context_v1")),
    Pairing("answer relevance", "answer_relevancy", ("answer", "context_v1"), ("poor_answer", "context_v1")),
    Pairing("context relevance", "context_relevance", ("answer", "context_v1"), ("answer", "context_v2")),
)
#: Table 1 of the RAGAS paper (agreement with human annotators on WikiEval).
PAPER_RESULTS: dict[str, tuple[float, float, float]] = {
    "RAGAS (gpt-3.5)": (0.95, 0.78, 0.70),
    "GPT Score": (0.72, 0.52, 0.63),
    "GPT Ranking": (0.54, 0.40, 0.52),
}
#: What the local judge aims for.
LOCAL_TARGETS: tuple[float, float, float] = (0.95, 0.78, 0.80)


@dataclass
class MetaEvalTable:
    """Agreement per pairing label for one judge (`format_table` sets the paper's rows beside it)."""

    judge: str
    rows: int
    agreement: dict[str, float | None]
    seconds: float = 0.0
    scores: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"judge": self.judge, "rows": self.rows, "agreement": self.agreement, "seconds": self.seconds}


def clean(text: Any, prefix: str = "") -> str:
    """WikiEval text without its "Question: "/"Answer: " prefix and a stray trailing quote."""
    value = str(text or "").strip().removeprefix(prefix).strip()
    return value[:-1].rstrip() if value.endswith("'") and value.count("'") % 2 == 1 else value


def load_wikieval(path: str | Path) -> list[dict[str, Any]]:
    """WikiEval rows with cleaned question and answer texts."""
    file = Path(path)
    if not file.exists():
        raise RagtestError(f"WikiEval file not found: {file}")
    rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        row["question"] = clean(row["question"], "Question:")
        for column in ("answer", "ungrounded_answer", "poor_answer"):
            row[column] = clean(row.get(column), "Answer:")
    return rows


def side_record(row: dict[str, Any], side: tuple[str, str]) -> dict[str, Any]:
    """One side of a pairing (answer column, contexts column) of a row."""
    (answer, contexts), question = side, row["question"]
    return {"question": question, "answer": row[answer], "contexts": list(row[contexts]), "source": row["source"]}


def run_wikieval(
    path: str | Path,
    judge: str = "local",
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    limit: int | None = None,
    show_progress: bool = False,
) -> MetaEvalTable:
    """Agreement of `judge` with WikiEval's human preferences for faithfulness, answer and context relevance."""
    rows = load_wikieval(path)[:limit]
    started = time.perf_counter()
    agreement: dict[str, float | None] = {}
    scores: dict[str, dict[str, list[float | None]]] = {}
    score = partial(evaluate_dataset, judge=judge, llm=llm, embedder=embedder, show_progress=show_progress)
    for pairing in PAIRINGS:
        sides = [pd.DataFrame([side_record(r, side) for r in rows]) for side in (pairing.preferred, pairing.other)]
        # each side scored in its own run
        preferred, other = (list(score(f, metrics=[pairing.metric]).frame[pairing.metric]) for f in sides)
        agreement[pairing.label] = pairwise_accuracy(preferred, other)
        scores[pairing.label] = {"preferred": preferred, "other": other}
    return MetaEvalTable(
        judge=judge, rows=len(rows), agreement=agreement, seconds=time.perf_counter() - started, scores=scores
    )


def wikieval_labelled(path: str | Path, table: MetaEvalTable) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """WikiEval as a team's own data would be: a scored file (each side of each pairing one row, with the score
    `run_wikieval` gave it) and a labels file (the human-preferred side 1, the other 0, the two sharing a
    `pair_id`). `meta-eval --labels` on them gives the same pairwise accuracy as `meta-eval --wikieval`."""
    rows = load_wikieval(path)[: table.rows]
    scored: list[dict[str, Any]] = []
    labels: list[dict[str, Any]] = []
    for pairing in PAIRINGS:
        sides = table.scores.get(pairing.label) or {}
        for side, columns, label in (("preferred", pairing.preferred, 1), ("other", pairing.other, 0)):
            for i, (row, score) in enumerate(zip(rows, sides.get(side) or [], strict=True)):
                pair = f"wikieval-{i:02d}-{pairing.metric}"
                reason = "scored by meta-eval --wikieval" if score is not None else "no score"
                record = {"sample_id": f"{pair}-{side}", **side_record(row, columns), pairing.metric: score}
                scored.append(record | {f"{pairing.metric}_reason": reason})
                labels.append(
                    {"sample_id": record["sample_id"], "labeller": "wikieval", pairing.metric: label, "pair_id": pair}
                )
    return pd.DataFrame(scored), labels


def format_table(table: MetaEvalTable) -> str:
    """The RAGAS paper's Table 1 layout: this judge's agreement next to the paper's numbers."""
    labels = [p.label for p in PAIRINGS]
    width = max(24, len(f"ragtest ({table.judge} judge)") + 2)
    ours = [table.agreement.get(label) for label in labels]

    def row(name: str, values: Sequence[float | str | None]) -> str:
        return f"{name:<{width}}" + "".join(
            f"{'n/a' if v is None else v if isinstance(v, str) else f'{v:.2f}':>19}" for v in values
        )

    lines = [
        f"WikiEval: agreement with human preferences ({table.rows} pairs per column; tie = 1/2)",
        row("", labels),
        row(f"ragtest ({table.judge} judge)", ours),
        *(row(name, values) for name, values in PAPER_RESULTS.items()),
    ]
    if table.judge == "local":
        lines.append(row("target (local judge)", LOCAL_TARGETS))
        missed = [
            label for label, v, target in zip(labels, ours, LOCAL_TARGETS, strict=True) if v is None or v < target
        ]
        lines.append("targets met" if not missed else f"targets missed: {', '.join(missed)}")
    lines.append(f"time: {table.seconds:.1f} s")
    return "\n".join(lines)
