"""The development sets of the local-judge ablation (`bench.judge_ablation`), each with a fixed tune / held-out split.

The split is fixed by a hash before any result is looked at: a row belongs to the held-out half when the first
byte of sha256(`SPLIT_SEED` + its key text) is odd (`half_of`). BEGIN's tune half fits each variant's logistic
weights; every BEGIN figure the ablation prints is on the held-out half. The other sets fit nothing here: they are
scored whole (WikiEval as the RAGAS paper's agreement over all 50 rows), and each says how it was used before
(`usage`): "in-sample" where an earlier design of the judge was tuned on it, "dev" where nothing was chosen on it,
"synthetic" for pairings built from rows (a swapped fact, another row's text) with labels nobody tuned on.

A set decides which components are added (`DevSet.decides`) unless it is in-sample for the earlier design and the
metric has other human-labelled data: faithfulness is decided on BEGIN's held-out half and the pairings built from
it or from rows nobody tuned on, with WikiEval's in-sample pairings reported beside them. Answer and context
relevance have no human labels but WikiEval's, so WikiEval decides for them, in-sample as it is.

Rows are `bench.judge_data` rows: {"question", "answer", "contexts", "ground_truth"?, "label"?}.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bench import judge_data as d

#: Fixed before the first run of the ablation; changing it is a new experiment.
SPLIT_SEED = "ragtest-judge-ablation-2026-11-27"
Row = dict[str, Any]
Pair = tuple[Row, Row]
Half = Literal["tune", "held-out"]


def half_of(key: str) -> Half:
    """The row's half: held-out when the first byte of sha256(seed, key) is odd."""
    digest = hashlib.sha256(f"{SPLIT_SEED}\x1f{key}".encode()).digest()
    return "held-out" if digest[0] & 1 else "tune"


def begin_key(row: Row) -> str:
    return "\x1f".join([row["source"], row["contexts"][0], row["question"], row["answer"]])


@dataclass(frozen=True)
class DevSet:
    """A labelled set: labelled rows (ROC-AUC) or preference pairs (pairwise accuracy, a tie counts one half)."""

    name: str
    usage: str
    rows: tuple[Row, ...] = ()
    pairs: tuple[Pair, ...] = ()
    #: Whether the set decides which components are added (see the module docstring); else it is only reported.
    decides: bool = True

    @property
    def kind(self) -> str:
        return "auc" if self.rows else "pairs"

    @property
    def size(self) -> int:
        return len(self.rows) or len(self.pairs)

    @property
    def label(self) -> str:
        return f"{self.name} [{self.usage}{'' if self.decides else '; reported only'}]"


@dataclass(frozen=True)
class MetricSets:
    """One metric's sets, and the rows its variants are fitted on (faithfulness only: BEGIN's tune half)."""

    metric: str
    sets: tuple[DevSet, ...]
    fit_rows: tuple[Row, ...] = ()


def begin_halves(data: Path) -> dict[Half, list[Row]]:
    rows = d.begin(data)
    out: dict[Half, list[Row]] = {"tune": [], "held-out": []}
    for row in rows:
        out[half_of(begin_key(row))].append(row)
    return out


def _pairs(name: str, usage: str, pairs: list[Pair], decides: bool = True) -> DevSet:
    return DevSet(name, usage, pairs=tuple(pairs), decides=decides)


def faithfulness_sets(data: Path) -> MetricSets:
    halves = begin_halves(data)
    held = halves["held-out"]
    attributable = [r for r in held if r["label"] == 1]
    wiki = d.wikieval_supported(data)
    sets = (
        DevSet("BEGIN held-out half, ROC-AUC", "dev: tune half fits the weights", rows=tuple(held)),
        _pairs("WikiEval answer > ungrounded answer", "in-sample", d.wikieval_pairs(data)["faithfulness"], False),
        _pairs("swap-int BEGIN held-out half", "synthetic", d.swap_pairs(attributable, "internal")),
        _pairs("swap-ext BEGIN held-out half", "synthetic", d.swap_pairs(attributable, "external")),
        _pairs("swap-int WikiEval", "synthetic, in-sample", d.swap_pairs(wiki, "internal"), False),
        _pairs("swap-ext WikiEval", "synthetic", d.swap_pairs(wiki, "external")),
    )
    return MetricSets("faithfulness", sets, tuple(halves["tune"]))


def answer_relevancy_sets(data: Path) -> MetricSets:
    sets = (
        _pairs("WikiEval answer > poor answer", "in-sample", d.wikieval_pairs(data)["answer_relevance"]),
        _pairs(
            "WikiEval answer > another row's answer", "synthetic, in-sample", d.wikieval_offtopic_pairs(data), False
        ),
        _pairs("FiQA own > another row's response", "synthetic", d.fiqa_pairs(data)),
        _pairs("WikiEval-RC grounding sentence > other sentence", "dev", d.wikieval_rc_pairs(data)),
    )
    return MetricSets("answer_relevancy", sets)


def context_relevance_sets(data: Path) -> MetricSets:
    contexts = d.wikieval_context_pairs(data)
    sets = (
        _pairs("WikiEval context_v1 > context_v2", "in-sample", d.wikieval_pairs(data)["context_relevance"]),
        _pairs("WikiEval context_v1 > another row's context_v1", "synthetic", contexts["recall"]),
        _pairs("FiQA own contexts > another row's", "synthetic", fiqa_context_pairs(data)["recall"]),
    )
    return MetricSets("context_relevance", sets)


def context_recall_sets(data: Path) -> MetricSets:
    contexts = d.wikieval_context_pairs(data)
    sets = (
        _pairs("WikiEval context_v1 > another row's context_v1, reference = answer", "synthetic", contexts["recall"]),
        _pairs("FiQA own contexts > another row's, vs the reference", "synthetic", fiqa_context_pairs(data)["recall"]),
    )
    return MetricSets("context_recall", sets)


def context_precision_sets(data: Path) -> MetricSets:
    contexts = d.wikieval_context_pairs(data)
    sets = (
        _pairs("WikiEval [own, another row's] > the other order, reference = answer", "synthetic", contexts["order"]),
        _pairs(
            "FiQA [own, another row's] > the other order, vs the reference",
            "synthetic",
            fiqa_context_pairs(data)["order"],
        ),
    )
    return MetricSets("context_precision", sets)


def fiqa_context_pairs(data: Path, seed: int = 0) -> dict[str, list[Pair]]:
    """FiQA rows with their own contexts vs another row's (recall), and [own contexts, another row's first
    context] vs the same in the other order (precision); the reference is the row's own."""
    rows = d.fiqa(data)
    other = d.derangement(len(rows), seed)
    recall, order = [], []
    for i, r in enumerate(rows):
        own, foreign = list(r["contexts"]), list(rows[other[i]]["contexts"])
        recall.append((r, {**r, "contexts": foreign}))
        order.append(({**r, "contexts": [*own, foreign[0]]}, {**r, "contexts": [foreign[0], *own]}))
    return {"recall": recall, "order": order}


def all_sets(data: Path) -> dict[str, MetricSets]:
    builders = (
        faithfulness_sets,
        answer_relevancy_sets,
        context_relevance_sets,
        context_recall_sets,
        context_precision_sets,
    )
    return {found.metric: found for found in (build(data) for build in builders)}


def speed_rows(data: Path, rows: int = 50) -> list[Row]:
    """WikiEval rows as a RAG output (question, answer, context_v1, the answer as reference): the rows/s sample."""
    return [
        {
            "question": r["question"],
            "answer": r["answer"],
            "contexts": list(r["context_v1"]),
            "ground_truth": r["answer"],
        }
        for r in d.wikieval(data)[:rows]
    ]
