"""Fit the support function's logistic base on BEGIN wow (the fit set); the feature set is chosen by 5-fold CV AUC.

    python -m bench.calibration.fit_support [--data ../shared/data] [--write]

Unit of fitting: a whole BEGIN dev response of source wow (Generic excluded, and the few responses that make no
claim: a refusal such as "I'm not sure." or a question without content words), its statements taken together
(`ragtest_core.support.pooled_features`: content-weighted shares and semantic similarity, the total weight of the
words found nowhere), as the local judge's faithfulness scores an answer (`joint_support`). The statements are the
local judge's (`LocalJudge.claims`), the previous turn is the question, the knowledge the evidence. Model:
scikit-learn LogisticRegression(C=10) (a dev dependency, used only here, never when scoring). The feature set named by
`CHOSEN` was chosen by the ablation (bench/support_ablation.py: leave-one-source-out over BEGIN's three sources);
the 5-fold CV AUCs on wow are recorded beside it. `--write` replaces ragtest_core/params/support_logit.json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import judge_data as d
from bench.embedding_cache import cached_embedder, save
from evaluation.local_judge import LocalJudge
from evaluation.refusal import is_refusal
from ragtest_core.support import SUPPORT_PARAMS_FILE, Evidence, SupportParams, claim_support, pooled_features

#: The model's features: the window share, the share anywhere, the semantic similarity, log(1 + missing weight).
FEATURES = ("lexical", "lexical_anywhere", "semantic", "missing_weight")
SUBSETS = {
    "any": ("lexical_anywhere",),
    "any+missing": ("lexical_anywhere", "missing_weight"),
    "any+sem": ("lexical_anywhere", "semantic"),
    "any+sem+missing": ("lexical_anywhere", "semantic", "missing_weight"),
    "all4": FEATURES,
}
CHOSEN = "all4"
FIT_SOURCES = ("wow",)


def row_features(rows: Sequence[d.Row], judge: LocalJudge) -> list[tuple[float, float, float, float] | None]:
    """Per row: the pooled features of its statements with unfitted parameters (None: a refusal, or no claim)."""
    params = SupportParams()
    out: list[tuple[float, float, float, float] | None] = []
    for r in rows:
        claims = [] if is_refusal(r["answer"]) else judge.claims(r["answer"])
        evidence = Evidence.of(r["contexts"], judge.vectors)  # with vectors: the semantic feature is fitted too
        vectors = judge.vectors(claims) if claims else np.zeros((0, 0))
        found = [claim_support(c, evidence, vectors[i], r["question"], params) for i, c in enumerate(claims)]
        pooled = pooled_features(found) if found else None
        out.append(None if pooled is None else (*pooled[:3], float(np.log1p(pooled[3]))))
    return out


def fit(x: np.ndarray, y: np.ndarray, columns: Sequence[int]) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=10.0, max_iter=2000).fit(x[:, list(columns)], y)


def coefficients(model: Any, subset: Sequence[str]) -> dict[str, float]:
    coef = dict(zip(subset, model.coef_[0].tolist(), strict=True))
    return {
        "b0": float(model.intercept_[0]),
        "b_window": float(coef.get("lexical", 0.0)),
        "b_any": float(coef.get("lexical_anywhere", 0.0)),
        "b_sem": float(coef.get("semantic", 0.0)),
        "b_missing": -float(coef.get("missing_weight", 0.0)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    parser = argparse.ArgumentParser(prog="python -m bench.calibration.fit_support")
    parser.add_argument("--data", type=Path, default=d.DATA)
    parser.add_argument("--write", action="store_true", help="replace the shipped parameter file")
    args = parser.parse_args(argv)
    embedder = cached_embedder()
    rows = [r for source in FIT_SOURCES for r in d.begin(args.data, source)]
    features = row_features(rows, LocalJudge(embedder))
    save(embedder)
    keep = [i for i, f in enumerate(features) if f is not None]
    x = np.asarray([features[i] for i in keep])
    y = np.asarray([rows[i]["label"] for i in keep])
    print(f"{'+'.join(FIT_SOURCES)} rows {len(rows)}, with a claim {len(keep)} ({int(y.sum())} attributable)")
    cv_auc: dict[str, float] = {}
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for name, subset in SUBSETS.items():
        columns = [FEATURES.index(f) for f in subset]
        scores = np.zeros(len(y))
        for train, test in folds.split(x, y):
            scores[test] = fit(x[train], y[train], columns).decision_function(x[test][:, columns])
        cv_auc[name] = float(roc_auc_score(y, scores))
        print(f"  {name}: 5-fold CV AUC {cv_auc[name]:.4f}")
    subset = SUBSETS[CHOSEN]
    fitted: dict[str, Any] = {
        **coefficients(fit(x, y, [FEATURES.index(f) for f in subset]), subset),
        "features": list(subset),
        "unit": "a whole response: its statements' pooled features (ragtest_core.support.pooled_features)",
        "fit_set": f"BEGIN dev, source {'+'.join(FIT_SOURCES)}, Generic and claim-less responses excluded "
        "(../shared/data/begin/begin_dev.jsonl)",
        "n": len(y),
        "positives": int(y.sum()),
        "model": "sklearn LogisticRegression(C=10)",
        "cv_auc": cv_auc,
        "chosen": CHOSEN,
        "chosen_by": "bench/support_ablation.py (leave-one-source-out over BEGIN wow, cmu, tc)",
        "script": "bench/calibration/fit_support.py",
    }
    print(json.dumps({k: round(fitted[k], 4) for k in ("b0", "b_window", "b_any", "b_sem", "b_missing")}))
    if args.write:
        SUPPORT_PARAMS_FILE.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
