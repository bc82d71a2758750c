"""Validity of the local judge: every local-judge metric on every labelled set in ../shared/data, each figure
labelled by what was tuned on what, next to plain baselines.

    python -m bench.judge_validity [--data DIR] [--gen DIR] [--quick] [--json OUT]

Each side of a pairing is scored in its own `evaluate_dataset` run, as a team scores two variants of its RAG.
Pairwise accuracy counts a tie one half; BEGIN is ROC-AUC (Generic rows excluded). Baselines: plain content-token
overlap (the share of the answer's, or the question's, content tokens found in the other text) and plain MiniLM
cosine of the whole texts. Labels ([in-sample], [dev*], [tune], [dev], [fit]): see `bench.judge_data`.
Calibration: the expected calibration error (10 bins) of answer_relevancy on pairs whose preferred side is labelled
1 and other side 0, on sets the calibration map was not fitted on. `--gen DIR` adds the fit set (generated test
sets, see `scripts/fit_answer_relevancy.py`); `--quick` skips BEGIN (the slow part).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import judge_data as d
from evaluation import evaluate_dataset
from evaluation.agreement import pairwise_accuracy
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.text import content_tokens

Row = dict[str, Any]
Pairs = list[tuple[Row, Row]]
Baseline = Callable[[Row, Embedder], float]


def judge(rows: Sequence[Row], metric: str, embedder: Embedder) -> list[float | None]:
    """The local judge, all `rows` in one run (as `ragtest evaluate` would score one file)."""
    keep = ("question", "answer", "contexts", "ground_truth")
    frame = pd.DataFrame([{k: v for k, v in r.items() if k in keep} for r in rows])
    result = evaluate_dataset(frame, [metric], judge="local", embedder=embedder, show_progress=False)
    return [None if v is None else float(v) for v in result.frame[metric]]


def _share(wanted: str, found: str) -> float:
    want = set(content_tokens(wanted))
    return len(want & set(content_tokens(found))) / len(want) if want else 1.0


def overlap_answer(row: Row, _: Embedder) -> float:
    return _share(row["answer"], " ".join(row["contexts"]))


def cosine_answer(row: Row, embedder: Embedder) -> float:
    return float(embedder.similarity([row["answer"]], [" ".join(row["contexts"])])[0, 0])


def overlap_question(row: Row, _: Embedder) -> float:
    return _share(row["question"], row["answer"])


def cosine_question(row: Row, embedder: Embedder) -> float:
    return float(embedder.similarity([row["question"]], [row["answer"]])[0, 0])


def overlap_context(row: Row, _: Embedder) -> float:
    return _share(row["question"], " ".join(row["contexts"]))


def cosine_context(row: Row, embedder: Embedder) -> float:
    return float(embedder.similarity([row["question"]], [" ".join(row["contexts"])])[0, 0])


BASELINES: dict[str, tuple[Baseline, Baseline]] = {
    "faithfulness": (overlap_answer, cosine_answer),
    "answer_relevancy": (overlap_question, cosine_question),
    "answer_relevancy_raw": (overlap_question, cosine_question),
    "context_relevance": (overlap_context, cosine_context),
    "context_precision": (overlap_context, cosine_context),
    "context_recall": (overlap_context, cosine_context),
}


def auc(scores: Sequence[float | None], labels: Sequence[int]) -> float:
    """ROC-AUC with ties counted one half (Mann-Whitney); a missing score ranks lowest."""
    s = np.asarray([-math.inf if x is None else x for x in scores], dtype=float)
    y = np.asarray(labels)
    pos, neg = s[y == 1], s[y == 0]
    greater = (pos[:, None] > neg[None, :]).sum()
    equal = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * equal) / (len(pos) * len(neg)))


def expected_calibration_error(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Sum over equal-width bins of (share of rows in the bin) x |mean prediction - mean label|."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    return float(sum(np.mean(index == b) * abs(p[index == b].mean() - y[index == b].mean()) for b in set(index)))


V1_V2 = "WikiEval context_v1 > context_v2"


def pair_sets(data: Path, gen: Path | None) -> dict[str, dict[str, Pairs]]:
    """metric -> {"set [label]": pairs (preferred, other)}."""
    wiki = d.wikieval_pairs(data)
    wow, dev = d.begin_attributable(data, "wow"), d.begin_attributable(data, "cmu") + d.begin_attributable(data, "tc")
    supported = d.wikieval_supported(data)
    relevance: dict[str, Pairs] = {
        "WikiEval answer > poor answer [in-sample]": wiki["answer_relevance"],
        "WikiEval answer > another row's answer [in-sample]": d.wikieval_offtopic_pairs(data),
        "FiQA own > another row's response [dev]": d.fiqa_pairs(data),
        "WikiEval-RC grounding > other sentence [dev*]": d.wikieval_rc_pairs(data),
    }
    if gen is not None:
        fit = d.generated_rc(gen)
        relevance["gen-RC source > same-chunk sentence [fit]"] = [(a, b) for a, b, _ in fit]
        relevance["gen-RC source > other article [fit]"] = [(a, c) for a, _, c in fit]
    fiqa = d.fiqa(data)
    other = d.derangement(len(fiqa), 0)
    correctness = [(r, {**r, "answer": fiqa[other[i]]["answer"]}) for i, r in enumerate(fiqa)]
    return {
        "faithfulness": {
            "WikiEval answer > ungrounded answer [in-sample]": wiki["faithfulness"],
            "swap-ext BEGIN wow [tune]": d.swap_pairs(wow, "external"),
            "swap-int BEGIN wow [tune]": d.swap_pairs(wow, "internal"),
            "swap-ext BEGIN cmu+tc [dev]": d.swap_pairs(dev, "external"),
            "swap-int BEGIN cmu+tc [dev]": d.swap_pairs(dev, "internal"),
            "swap-ext WikiEval [dev*]": d.swap_pairs(supported, "external"),
            "swap-int WikiEval [dev*]": d.swap_pairs(supported, "internal"),
        },
        "answer_relevancy": relevance,
        "answer_relevancy_raw": relevance,
        "context_relevance": {"WikiEval context_v1 > context_v2 [in-sample]": wiki["context_relevance"]},
        "context_precision": {f"{V1_V2}, reference = answer [in-sample]": wiki["context_relevance"]},
        "context_recall": {f"{V1_V2}, reference = answer [in-sample]": wiki["context_relevance"]},
        "answer_correctness": {"FiQA own > another row's response, vs the reference [dev]": correctness},
    }


def measure_pairs(sets: dict[str, dict[str, Pairs]], embedder: Embedder) -> list[dict[str, Any]]:
    out = []
    for metric, named in sets.items():
        for name, pairs in named.items():
            preferred = judge([a for a, _ in pairs], metric, embedder)
            other = judge([b for _, b in pairs], metric, embedder)
            entry: dict[str, Any] = {
                "metric": metric,
                "set": name,
                "n": len(pairs),
                "judge": pairwise_accuracy(preferred, other),
                "ties": float(np.mean([a == b for a, b in zip(preferred, other, strict=True)])),
            }
            for label, baseline in zip(("overlap", "cosine"), BASELINES.get(metric, ()), strict=False):
                entry[label] = pairwise_accuracy(
                    [baseline(a, embedder) for a, _ in pairs], [baseline(b, embedder) for _, b in pairs]
                )
            out.append(entry)
            print(json.dumps(entry), flush=True)
    return out


def measure_begin(data: Path, embedder: Embedder) -> list[dict[str, Any]]:
    out = []
    for source, label in (("wow", "tune"), ("cmu", "dev"), ("tc", "dev"), (None, "all; wow tuned")):
        rows = d.begin(data, source)
        labels = [r["label"] for r in rows]
        entry = {
            "metric": "faithfulness",
            "set": f"BEGIN {source or 'all'} ROC-AUC [{label}]",
            "n": len(rows),
            "judge": auc(judge(rows, "faithfulness", embedder), labels),
            "overlap": auc([overlap_answer(r, embedder) for r in rows], labels),
            "cosine": auc([cosine_answer(r, embedder) for r in rows], labels),
        }
        out.append(entry)
        print(json.dumps(entry), flush=True)
    return out


def measure_calibration(data: Path, gen: Path | None, embedder: Embedder) -> list[dict[str, Any]]:
    sets = {
        "FiQA own (1) / another row's response (0) [dev]": d.fiqa_pairs(data),
        "WikiEval-RC grounding (1) / other sentence (0) [dev*]": d.wikieval_rc_pairs(data),
        "WikiEval answer (1) / another row's answer (0) [in-sample]": d.wikieval_offtopic_pairs(data),
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


def markdown(pairs: list[dict[str, Any]], calibration: list[dict[str, Any]]) -> str:
    lines = [
        "| metric | set [label] | n | local judge | ties | token overlap | MiniLM cosine |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in pairs:
        ties = "-" if "ties" not in e else f"{e['ties']:.2f}"
        lines.append(
            f"| {e['metric']} | {e['set']} | {e['n']} | **{_cell(e['judge'])}** | {ties} | "
            f"{_cell(e.get('overlap'))} | {_cell(e.get('cosine'))} |"
        )
    lines += [
        "",
        "| answer_relevancy calibration | n | ECE | Brier | mean score, label 1 | label 0 |",
        "|---|---|---|---|---|---|",
    ]
    for e in calibration:
        lines.append(
            f"| {e['set']} | {e['n']} | {e['ece']:.3f} | {e['brier']:.3f} | {e['mean_1']:.3f} | {e['mean_0']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_validity", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=d.DATA, help="the shared data folder (../shared/data)")
    parser.add_argument("--gen", type=Path, default=None, help="generated test sets: adds the calibration fit set")
    parser.add_argument("--quick", action="store_true", help="skip BEGIN (1,148 rows)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    embedder = get_embedder()
    pairs = measure_pairs(pair_sets(args.data, args.gen), embedder)
    if not args.quick:
        pairs += measure_begin(args.data, embedder)
    calibration = measure_calibration(args.data, args.gen, embedder)
    print(markdown(pairs, calibration))
    print(f"time: {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"pairs": pairs, "calibration": calibration}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
