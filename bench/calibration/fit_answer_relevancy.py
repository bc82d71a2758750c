"""Fit the answer-relevancy calibration (a Platt map on the centred cosine) and measure it on data it was not fit on.

    python -m bench.calibration.fit_answer_relevancy --gen DIR [--data ../shared/data] [--mean FILE.npy] [--write]

Feature: the best centred cosine (fixed centring mean, `ragtest_core.relevance`) between the question and an answer
sentence. Fit set ("gen-RC", `bench.judge_data.generated_rc`): simple questions written by the repo's extractive
writer from 6 of the 7 shared Wikipedia articles (Python excluded: it is the demo's article), one test set per
article in DIR, made with

    ragtest generate --topic "<title>" --wiki-cache ../shared/data/wikipedia --offline --size 15 --seed 7 \
        --output DIR/<title>.jsonl

label 1 = the sentence the question was written from; label 0 = another sentence of the same chunk, and a sentence
of another article; the two classes weigh the same (a prior of 1/2); Platt's target smoothing. Evaluated (not
fitted) on FiQA own vs another row's response [dev], the WikiEval-RC proxy [dev*] and WikiEval answer vs another
row's answer [in-sample]: the expected calibration error (10 bins) of the map alone. `bench.judge_validity`
reports the calibration of the final metric. `--write` replaces ragtest_core/params/answer_relevancy_platt.json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench import judge_data as d
from bench.judge_validity import expected_calibration_error
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.relevance import ANSWER_MAP_FILE, CENTRING_MEAN_FILE, Platt, centred_cosine, load_centring_mean
from ragtest_core.textunits import claim_sentences


def fit_platt(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> Platt:
    """Maximum-likelihood logistic fit of y (0/1) on one feature x (Newton's method, a tiny L2 on the slope), with
    Platt's (1998) target smoothing ((N+ + 1)/(N+ + 2) and 1/(N- + 2) instead of 1 and 0) and balanced classes."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    positives, negatives = y.sum(), (1 - y).sum()
    target = np.where(y > 0.5, (positives + 1) / (positives + 2), 1 / (negatives + 2))
    weight = np.where(y > 0.5, 0.5 / positives, 0.5 / negatives) * len(y)
    w = np.zeros(2)
    design = np.stack([x, np.ones_like(x)], axis=1)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(design @ w)))
        grad = design.T @ (weight * (p - target)) + l2 * np.array([w[0], 0.0])
        hess = (design * (weight * p * (1 - p))[:, None]).T @ design + l2 * np.diag([1.0, 0.0])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return Platt(float(w[0]), float(w[1]))


def feature(rows: Sequence[d.Row], mean: np.ndarray, embedder: Embedder) -> np.ndarray:
    """Per row: the best centred cosine between the question and an answer sentence."""
    values = []
    for r in rows:
        claims = claim_sentences(r["answer"]) or [r["answer"]]
        vectors = embedder.embed([r["question"], *claims])
        values.append(float(centred_cosine(vectors[:1], vectors[1:], mean)[0].max()))
    return np.asarray(values)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration.fit_answer_relevancy")
    parser.add_argument("--gen", type=Path, required=True, help="folder of generated test sets (one per article)")
    parser.add_argument("--data", type=Path, default=d.DATA)
    parser.add_argument("--mean", type=Path, default=CENTRING_MEAN_FILE, help="the centring mean (.npy)")
    parser.add_argument("--write", action="store_true", help="replace the shipped parameter file")
    args = parser.parse_args(argv)
    embedder, mean = get_embedder(), load_centring_mean(str(args.mean))
    fit = d.generated_rc(args.gen)
    rows = [a for a, _, _ in fit] + [b for _, b, _ in fit] + [c for _, _, c in fit]
    y = np.asarray([1] * len(fit) + [0] * (2 * len(fit)))
    platt = fit_platt(feature(rows, mean, embedder), y)
    midpoint = -platt.intercept / platt.slope
    print(f"slope {platt.slope:.3f}, intercept {platt.intercept:.3f} (x at p = 0.5: {midpoint:.3f}), n {len(y)}")
    held_out = {
        "FiQA own (1) / another row's response (0) [dev]": d.fiqa_pairs(args.data),
        "WikiEval-RC grounding (1) / other sentence (0) [dev*]": d.wikieval_rc_pairs(args.data),
        "WikiEval answer (1) / another row's answer (0) [in-sample]": d.wikieval_offtopic_pairs(args.data),
    }
    for name, pairs in held_out.items():
        p = platt(feature([a for a, _ in pairs] + [b for _, b in pairs], mean, embedder))
        labels = np.asarray([1] * len(pairs) + [0] * len(pairs), dtype=float)
        print(f"  {name}: ECE {expected_calibration_error(p, labels):.3f}")
    if args.write:
        provenance = {
            "slope": platt.slope,
            "intercept": platt.intercept,
            "feature": f"max over answer sentences of the centred cosine (question, sentence); mean {args.mean.name}",
            "fit_set": "gen-RC: `ragtest generate --offline --size 15 --seed 7` on the 6 shared Wikipedia articles "
            "other than Python; positives = source sentence, negatives = same-chunk sentence + other-article "
            "sentence; classes balanced; Platt target smoothing",
            "n_fit": len(y),
            "script": "bench/calibration/fit_answer_relevancy.py",
        }
        ANSWER_MAP_FILE.write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
