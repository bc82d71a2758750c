"""Validity of the local judge: every local-judge metric on every labelled set in ../shared/data, next to plain
token overlap and plain MiniLM cosine, each set labelled by how it was used.

    python -m bench.judge_validity [--data DIR] [--gen DIR] [--cache DIR] [--quick] [--json OUT]

How each set was used (the label after its name):
- [fit]: a shipped parameter was fitted on it (the judge's support model on the tune half of BEGIN, every source,
  and its components chosen on the other half: bench/judge_ablation.py, where the held-out figures are; the relevance
  calibration on gen-RC);
- [tune]: a design choice was made looking at it (the ablation's deciding sets: the swapped-fact pairings of BEGIN,
  WikiEval's pairings for the relevance metrics, FiQA's; WikiEval's own pairings also tuned earlier designs);
- [dev]: scored during development, nothing chosen or fitted on it;
- [held out]: scored only once the design was frozen.

Each side of a pairing is scored in its own `evaluate_dataset` run, as a team scores two variants of its RAG.
Pairwise accuracy counts a tie one half; BEGIN is ROC-AUC (Generic rows excluded). Every figure has a 95% bootstrap
interval, and the margin of the judge over the better baseline has its own paired interval (`bench.validity_stats`).
A metric where lower is better (hallucination) is compared on 1 - score. Baselines (per metric family): the share of
the answer's content tokens found in the other text, and the cosine of the two whole texts. `--quick` skips BEGIN.
Sentence vectors are cached on disk (`bench.embedding_cache`); the Python article's offline test set (the fragment
set) is generated once into `--cache`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import judge_data as d
from bench.embedding_cache import cached_embedder, save
from bench.validity_stats import Measured, auc, expected_calibration_error, measure_auc, measure_pairs, pair_outcomes
from evaluation.engine import evaluate_dataset
from ragtest_core.embeddings import Embedder
from ragtest_core.text import content_tokens

__all__ = ["auc", "cosine_answer", "expected_calibration_error", "main", "overlap_answer"]

Row = dict[str, Any]
Pairs = list[tuple[Row, Row]]
Baseline = Callable[[Row, Embedder], float]
LOWER_IS_BETTER = frozenset({"hallucination"})


def judge(rows: Sequence[Row], metric: str, embedder: Embedder) -> list[float | None]:
    """The local judge, all `rows` in one run (as `ragtest evaluate` would score one file)."""
    keep = ("question", "answer", "contexts", "ground_truth")
    frame = pd.DataFrame([{k: v for k, v in r.items() if k in keep} for r in rows])
    result = evaluate_dataset(frame, metrics=[metric], judge="local", embedder=embedder, show_progress=False)
    values = [None if v is None else float(v) for v in result.frame[metric]]
    return [None if v is None else 1.0 - v for v in values] if metric in LOWER_IS_BETTER else values


def _share(wanted: str, found: str) -> float:
    want = set(content_tokens(wanted))
    return len(want & set(content_tokens(found))) / len(want) if want else 1.0


def _cosine(embedder: Embedder, left: str, right: str) -> float:
    return float(embedder.similarity([left], [right])[0, 0])


def overlap_answer(row: Row, _: Embedder) -> float:
    return _share(row["answer"], " ".join(row["contexts"]))


def cosine_answer(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["answer"], " ".join(row["contexts"]))


def overlap_question(row: Row, _: Embedder) -> float:
    return _share(row["question"], row["answer"])


def cosine_question(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["question"], row["answer"])


def overlap_context(row: Row, _: Embedder) -> float:
    return _share(row["question"], " ".join(row["contexts"]))


def cosine_context(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["question"], " ".join(row["contexts"]))


def overlap_reference(row: Row, _: Embedder) -> float:
    return _share(row["answer"], row["ground_truth"])


def cosine_reference(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["answer"], row["ground_truth"])


def overlap_reference_contexts(row: Row, _: Embedder) -> float:
    return _share(row["ground_truth"], " ".join(row["contexts"]))


def cosine_reference_contexts(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["ground_truth"], " ".join(row["contexts"]))


def overlap_grounded(row: Row, _: Embedder) -> float:
    return _share(row["answer"], " ".join([row["ground_truth"], *row["contexts"]]))


def cosine_grounded(row: Row, embedder: Embedder) -> float:
    return _cosine(embedder, row["answer"], " ".join([row["ground_truth"], *row["contexts"]]))


BASELINES: dict[str, tuple[Baseline, Baseline]] = {
    "faithfulness": (overlap_answer, cosine_answer),
    "answer_relevancy": (overlap_question, cosine_question),
    "answer_relevancy_raw": (overlap_question, cosine_question),
    "context_relevance": (overlap_context, cosine_context),
    "context_precision": (overlap_context, cosine_context),
    "context_recall": (overlap_context, cosine_context),
    "answer_correctness": (overlap_reference, cosine_reference),
    "answer_claim_precision": (overlap_reference, cosine_reference),
    "answer_claim_recall": (overlap_reference, cosine_reference),
    "answer_claim_f1": (overlap_reference, cosine_reference),
    "context_claim_recall": (overlap_reference_contexts, cosine_reference_contexts),
    "hallucination": (overlap_grounded, cosine_grounded),
}
V1_V2 = "WikiEval context_v1 > context_v2, reference = answer [tune]"


def pair_sets(data: Path, cache: Path) -> dict[str, dict[str, Pairs]]:
    """metric -> {"set [usage]": pairs (preferred, other)}."""
    wiki = d.wikieval_pairs(data)
    wow, dev = d.begin_attributable(data, "wow"), d.begin_attributable(data, "cmu") + d.begin_attributable(data, "tc")
    supported = d.wikieval_supported(data)
    relevance: dict[str, Pairs] = {
        "WikiEval answer > poor answer [tune]": wiki["answer_relevance"],
        "WikiEval answer > another row's answer [tune]": d.wikieval_offtopic_pairs(data),
        "FiQA own > another row's response [tune]": d.fiqa_pairs(data),
        "WikiEval-RC grounding > other sentence [tune]": d.wikieval_rc_pairs(data),
        "gen-Python complete reference > its answer span [dev]": d.fragment_pairs(cache),
    }
    fiqa = d.fiqa_reference_pairs(data)
    contexts = d.wikieval_context_pairs(data)
    own_context = "WikiEval context_v1 > another row's context_v1, reference = answer [dev]"
    first = "WikiEval [context_v1, another row's] > the same, other order, reference = answer [dev]"
    own = "FiQA own > another row's response, vs the reference [dev]"
    return {
        "faithfulness": {
            "WikiEval answer > ungrounded answer [tune]": wiki["faithfulness"],
            "swap-ext BEGIN wow [tune]": d.swap_pairs(wow, "external"),
            "swap-int BEGIN wow [tune]": d.swap_pairs(wow, "internal"),
            "swap-ext BEGIN cmu+tc [tune]": d.swap_pairs(dev, "external"),
            "swap-int BEGIN cmu+tc [tune]": d.swap_pairs(dev, "internal"),
            "swap-ext WikiEval [tune]": d.swap_pairs(supported, "external"),
            "swap-int WikiEval [tune]": d.swap_pairs(supported, "internal"),
        },
        "answer_relevancy": relevance,
        "answer_relevancy_raw": relevance,
        "context_relevance": {
            "WikiEval context_v1 > context_v2 [tune]": wiki["context_relevance"],
            own_context.replace(", reference = answer", ""): contexts["recall"],
        },
        "context_precision": {V1_V2: wiki["context_relevance"], first: contexts["order"]},
        "context_recall": {V1_V2: wiki["context_relevance"], own_context: contexts["recall"]},
        "answer_correctness": {own: fiqa},
        "answer_claim_precision": {own: fiqa},
        "answer_claim_recall": {own: fiqa},
        "answer_claim_f1": {own: fiqa},
        "hallucination": {own + " (lower is better)": fiqa},
        "context_claim_recall": {
            V1_V2.replace("[tune]", "[dev]"): wiki["context_relevance"],
            own_context: contexts["recall"],
        },
    }


def _entry(metric: str, name: str, n: int, measured: Measured, ties: float | None) -> dict[str, Any]:
    overlap, cosine = (*measured.baselines, None, None)[:2]
    return {
        "metric": metric,
        "set": name,
        "n": n,
        "judge": measured.judge,
        "judge_ci": [measured.judge_low, measured.judge_high],
        "ties": ties,
        "overlap": overlap,
        "cosine": cosine,
        "margin": measured.margin,
        "margin_ci": [measured.margin_low, measured.margin_high],
    }


def measure_pair_sets(sets: dict[str, dict[str, Pairs]], embedder: Embedder) -> list[dict[str, Any]]:
    out = []
    for metric, named in sets.items():
        for name, pairs in named.items():
            preferred = judge([a for a, _ in pairs], metric, embedder)
            other = judge([b for _, b in pairs], metric, embedder)
            outcomes = [pair_outcomes(preferred, other)]
            for baseline in BASELINES.get(metric, ()):
                outcomes.append(
                    pair_outcomes([baseline(a, embedder) for a, _ in pairs], [baseline(b, embedder) for _, b in pairs])
                )
            ties = float(np.mean([a == b for a, b in zip(preferred, other, strict=True)]))
            out.append(_entry(metric, name, len(pairs), measure_pairs(outcomes), ties))
            print(json.dumps(out[-1]), flush=True)
    return out


def measure_begin(data: Path, embedder: Embedder) -> list[dict[str, Any]]:
    out = []
    rows_all = d.begin(data)
    scored = judge(rows_all, "faithfulness", embedder)
    claims = d.makes_a_claim(rows_all)
    sets = [
        ("BEGIN wow ROC-AUC [fit]", lambda r, i: r["source"] == "wow"),
        ("BEGIN cmu ROC-AUC [fit]", lambda r, i: r["source"] == "cmu"),
        ("BEGIN tc ROC-AUC [fit]", lambda r, i: r["source"] == "tc"),
        ("BEGIN all ROC-AUC [fit]", lambda r, i: True),
        ("BEGIN cmu, responses that make a claim, ROC-AUC [fit]", lambda r, i: r["source"] == "cmu" and claims[i]),
    ]
    for name, keep in sets:
        index = [i for i, r in enumerate(rows_all) if keep(r, i)]
        rows = [rows_all[i] for i in index]
        scores: list[list[float | None]] = [
            [scored[i] for i in index],
            [overlap_answer(r, embedder) for r in rows],
            [cosine_answer(r, embedder) for r in rows],
        ]
        out.append(_entry("faithfulness", name, len(rows), measure_auc(scores, [r["label"] for r in rows]), None))
        print(json.dumps(out[-1]), flush=True)
    return out


def measure_calibration(data: Path, gen: Path | None, embedder: Embedder) -> list[dict[str, Any]]:
    sets = {
        "FiQA own (1) / another row's response (0) [dev]": d.fiqa_pairs(data),
        "WikiEval-RC grounding (1) / other sentence (0) [dev]": d.wikieval_rc_pairs(data),
        "WikiEval answer (1) / another row's answer (0) [tune]": d.wikieval_offtopic_pairs(data),
    }
    if gen is not None:
        sets["gen-RC source (1) / same-chunk sentence (0) [fit]"] = [(a, b) for a, b, _ in d.generated_rc(gen)]
    out = []
    for name, pairs in sets.items():
        p = np.asarray(judge([a for a, _ in pairs] + [b for _, b in pairs], "answer_relevancy", embedder), dtype=float)
        y = np.asarray([1] * len(pairs) + [0] * len(pairs), dtype=float)
        entry = {
            "set": name,
            "n": len(y),
            "ece": expected_calibration_error(p, y),
            "brier": float(np.mean((p - y) ** 2)),
            "mean_1": float(p[y == 1].mean()),
            "mean_0": float(p[y == 0].mean()),
        }
        out.append(entry)
        print(json.dumps(entry), flush=True)
    return out


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def verdict(entry: dict[str, Any]) -> str:
    """Whether the judge is at or above both baselines (by its point figure), and how sure."""
    margin, (low, high) = entry["margin"], entry["margin_ci"]
    if margin is None:
        return "no baseline"
    if margin > 0:
        return "yes" if low is not None and low > 0 else "yes (margin within noise)"
    if margin == 0:
        return "yes (tie)"
    return "no, within noise" if high is not None and high >= 0 else "**no**"


def markdown(pairs: list[dict[str, Any]], calibration: list[dict[str, Any]]) -> str:
    lines = [
        "| metric | set [used as] | n | local judge [95% CI] | token overlap | MiniLM cosine "
        "| margin over the better baseline [95% CI] | at or above both |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in pairs:
        low, high = e["judge_ci"]
        m_low, m_high = e["margin_ci"]
        margin = "-" if e["margin"] is None else f"{e['margin']:+.3f} [{m_low:+.3f}, {m_high:+.3f}]"
        lines.append(
            f"| {e['metric']} | {e['set']} | {e['n']} | **{_cell(e['judge'])}** [{low:.3f}, {high:.3f}] | "
            f"{_cell(e['overlap'])} | {_cell(e['cosine'])} | {margin} | {verdict(e)} |"
        )
    lines += [
        "",
        "| answer_relevancy calibration | n | ECE | Brier | mean score, label 1 | label 0 |",
        "|---|---|---|---|---|---|",
    ]
    for c in calibration:
        lines.append(
            f"| {c['set']} | {c['n']} | {c['ece']:.3f} | {c['brier']:.3f} | {c['mean_1']:.3f} | {c['mean_0']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_validity", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=d.DATA, help="the shared data folder (../shared/data)")
    parser.add_argument("--gen", type=Path, default=None, help="generated test sets: adds the calibration fit set")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ragtest-judge-validity"), help="generated sets")
    parser.add_argument("--quick", action="store_true", help="skip BEGIN (1,148 rows)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    embedder = cached_embedder()
    pairs = measure_pair_sets(pair_sets(args.data, args.cache), embedder)
    if not args.quick:
        pairs = measure_begin(args.data, embedder) + pairs
    calibration = measure_calibration(args.data, args.gen, embedder)
    save(embedder)
    print(markdown(pairs, calibration))
    print(f"time: {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"pairs": pairs, "calibration": calibration}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
