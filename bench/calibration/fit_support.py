"""Fit the support function's logistic base on BEGIN wow (the tune set); the feature set is chosen by 5-fold CV AUC.

    python -m bench.calibration.fit_support [--data ../shared/data] [--write]

Unit of fitting: BEGIN dev responses of source wow with exactly one claim sentence (the label is per response; with
one sentence it is the sentence's label), Generic excluded; the previous turn is the question, the knowledge the
evidence. Features per claim (conflicts not involved): the lexical share in the best window, the share anywhere in
the evidence, the best sentence cosine, the weighted count of claim words found nowhere. Model: scikit-learn
LogisticRegression(C=10) (dev dependency; used only here, never when scoring). `--write` replaces
ragtest_core/params/support_logit.json (coefficients, fit set, CV AUCs, this script).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import judge_data as d
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.support import SUPPORT_PARAMS_FILE, Evidence, SupportParams, claim_support
from ragtest_core.textunits import claim_sentences

FEATURES = ("lexical", "lexical_anywhere", "semantic", "missing_weight")
SUBSETS = {
    "lex": ("lexical",),
    "any": ("lexical_anywhere",),
    "lex+any": ("lexical", "lexical_anywhere"),
    "any+missing": ("lexical_anywhere", "missing_weight"),
    "lex+any+missing": ("lexical", "lexical_anywhere", "missing_weight"),
    "lex+any+sem": ("lexical", "lexical_anywhere", "semantic"),
    "all4": FEATURES,
}


def claim_features(rows: Sequence[d.Row], embedder: Embedder) -> list[list[list[float]]]:
    """Per row, per claim sentence of the answer: the four features (unfitted parameters: no coefficients)."""
    params = SupportParams()
    out = []
    for r in rows:
        claims = claim_sentences(r["answer"])
        evidence = Evidence.of(r["contexts"], embedder.embed)
        vectors = embedder.embed(claims) if claims else np.zeros((0, 0))
        found = [claim_support(c, evidence, vectors[i], r["question"], params) for i, c in enumerate(claims)]
        out.append([[s.lexical, s.lexical_anywhere, s.semantic or 0.0, s.missing_weight] for s in found])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    parser = argparse.ArgumentParser(prog="python -m bench.calibration.fit_support")
    parser.add_argument("--data", type=Path, default=d.DATA)
    parser.add_argument("--write", action="store_true", help="replace the shipped parameter file")
    args = parser.parse_args(argv)
    rows = d.begin(args.data, "wow")
    features = claim_features(rows, get_embedder())
    single = [i for i, f in enumerate(features) if len(f) == 1]
    x = np.asarray([features[i][0] for i in single])
    y = np.asarray([rows[i]["label"] for i in single])
    print(f"wow rows {len(rows)}, single-claim rows {len(single)} ({int(y.sum())} attributable)")
    cv_auc: dict[str, float] = {}
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for name, subset in SUBSETS.items():
        columns = [FEATURES.index(f) for f in subset]
        scores = np.zeros(len(y))
        for train, test in folds.split(x, y):
            model = LogisticRegression(C=10.0, max_iter=1000).fit(x[train][:, columns], y[train])
            scores[test] = model.decision_function(x[test][:, columns])
        cv_auc[name] = float(roc_auc_score(y, scores))
        print(f"  {name}: 5-fold CV AUC {cv_auc[name]:.4f}")
    model = LogisticRegression(C=10.0, max_iter=1000).fit(x, y)
    coef = dict(zip(FEATURES, model.coef_[0].tolist(), strict=True))
    fitted: dict[str, Any] = {
        "b0": float(model.intercept_[0]),
        "b_window": coef["lexical"],
        "b_any": coef["lexical_anywhere"],
        "b_sem": coef["semantic"],
        "b_missing": -coef["missing_weight"],
        "features": list(FEATURES),
        "fit_set": "BEGIN dev, source wow, single-claim responses, Generic excluded "
        "(../shared/data/begin/begin_dev.jsonl)",
        "n": len(y),
        "positives": int(y.sum()),
        "model": "sklearn LogisticRegression(C=10)",
        "cv_auc": cv_auc,
        "chosen": "all4",
        "script": "bench/calibration/fit_support.py",
    }
    print(json.dumps({k: fitted[k] for k in ("b0", "b_window", "b_any", "b_sem", "b_missing")}))
    if args.write:
        SUPPORT_PARAMS_FILE.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
