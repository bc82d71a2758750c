"""Ablation of the support score with the semantic feature (the test-set generator's groundedness check,
`support_logit.json`) against plain token overlap and plain MiniLM cosine. The local judge's own support model was
built by `bench.judge_ablation` (lexical: `local_judge_support.json`).

    python -m bench.support_ablation [--data ../shared/data] [--json OUT]

One part of that design changes at a time: statement splitting (fillers as content or not, hedging clauses,
the whole answer as one claim), the aggregation over statements (the joint support of the pooled features, the mean,
the minimum), the sentence window, the conflict rule, the cosine feature, and the fitted weights. Every variant's
logistic is refitted leave-one-source-out over BEGIN's three dialogue sources (fit on two, ROC-AUC on the third), so
every BEGIN figure is held out for the weights; the design itself was chosen on these figures (label [tune]). The
pair sets use the model fitted on wow (for swap-int BEGIN wow: on cmu+tc), never on their own rows. Baselines: the
share of the answer's content tokens found in the contexts, and the cosine of the whole answer with the contexts.
Sentence vectors are cached on disk (`bench.embedding_cache`): a second run embeds nothing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bench import judge_data as d
from bench.embedding_cache import cached_embedder, save
from bench.judge_validity import auc, cosine_answer, overlap_answer
from evaluation.label_stats import pairwise_accuracy
from evaluation.local_judge import LocalJudge
from evaluation.refusal import is_noncommittal_sentence, is_refusal
from ragtest_core import judge_params, textunits
from ragtest_core.embeddings import Embedder
from ragtest_core.support import Evidence, Support, SupportParams, claim_support

SOURCES = ("wow", "cmu", "tc")
Row = dict[str, Any]
Claims = Callable[[LocalJudge, str], list[str]]


@dataclass(frozen=True)
class Variant:
    """One design: how statements are cut, the window, how supports combine, which features, how weights are set."""

    name: str
    splitting: str = "sentences"  # sentences | whole | fillers-noncontent | fillers-noclaim | hedge-dropped
    window: int = 2
    aggregate: str = "joint"  # joint | mean | min
    conflicts: str = "weighted"  # weighted | product | off
    features: tuple[str, ...] = ("lexical", "anywhere", "semantic", "missing")
    weights: str = "loso"  # loso | unfitted


VARIANTS = (
    Variant("shipped design (LOSO weights)"),
    Variant("splitting: whole answer as one claim", splitting="whole"),
    Variant("splitting: fillers not content words", splitting="fillers-noncontent"),
    Variant("splitting: filler-only sentences no claim", splitting="fillers-noclaim"),
    Variant("splitting: hedging sentences dropped (before)", splitting="hedge-dropped"),
    Variant("aggregation: mean of statements", aggregate="mean"),
    Variant("aggregation: min of statements", aggregate="min"),
    Variant("window: 1 sentence", window=1),
    Variant("window: 3 sentences", window=3),
    Variant("conflict rule: off", conflicts="off"),
    Variant("conflict rule: product over statements", conflicts="product"),
    Variant("cosine feature: off", features=("lexical", "anywhere", "missing")),
    Variant("window share feature: off", features=("anywhere", "semantic", "missing")),
    Variant("missing-words feature: off", features=("lexical", "anywhere", "semantic")),
    Variant("weights: unfitted (all 1)", weights="unfitted"),
)


def _claims(variant: Variant) -> Claims:
    if variant.splitting == "hedge-dropped":
        return lambda judge, text: [s for s in textunits.claim_sentences(text) if not is_noncommittal_sentence(s)]
    return lambda judge, text: judge.claims(text)


def _text_units(splitting: str) -> None:
    """Set the filler switches of the judge's parameters for a splitting variant (the shipped: both empty)."""
    non_content = textunits.FILLERS if splitting == "fillers-noncontent" else frozenset()
    fillers_no_claim = splitting == "fillers-noclaim"
    no_claim = textunits.EVALUATIVE | textunits.FILLERS if fillers_no_claim else frozenset()
    judge_params.PARAMS = replace(judge_params.PARAMS, non_content=non_content, no_claim=no_claim)
    textunits.unit.cache_clear()


def supports(rows: Sequence[Row], variant: Variant, embedder: Embedder) -> list[list[Support]]:
    """Per row, the unfitted support of each statement (the features and conflict factors the models read)."""
    _text_units(variant.splitting)
    judge, claims_of = LocalJudge(embedder), _claims(variant)
    params = replace(SupportParams(), lexical_window=variant.window)
    out = []
    for r in rows:
        claims = [] if is_refusal(r["answer"]) else claims_of(judge, r["answer"])
        if variant.splitting == "whole" and claims:
            claims = [" ".join(claims)]
        evidence = Evidence.of(r["contexts"], judge.vectors)  # with vectors: the semantic feature is fitted too
        vectors = judge.vectors(claims) if claims else np.zeros((0, 0))
        out.append([claim_support(c, evidence, vectors[i], r.get("question"), params) for i, c in enumerate(claims)])
    _text_units("sentences")
    return out


def _features(found: Sequence[Support], names: Sequence[str]) -> np.ndarray:
    values = {
        "lexical": [s.lexical for s in found],
        "anywhere": [s.lexical_anywhere for s in found],
        "semantic": [s.semantic or 0.0 for s in found],
        "missing": [s.missing_weight for s in found],
    }
    return np.asarray([values[n] for n in names], dtype=float).T


def _pooled(found: Sequence[Support], names: Sequence[str]) -> np.ndarray:
    kept = [s for s in found if s.weight > 0]
    weights = np.asarray([s.weight for s in kept])
    x = _features(kept, names)
    pooled = (x * weights[:, None]).sum(axis=0) / weights.sum()
    if "missing" in names:
        pooled[list(names).index("missing")] = x[:, list(names).index("missing")].sum()
    return pooled


def _design(found: Sequence[Support], variant: Variant) -> np.ndarray:
    """Model inputs: one row for the joint support, one per statement otherwise (log 1 + missing weight)."""
    names = variant.features
    x = _pooled(found, names)[None, :] if variant.aggregate == "joint" else _features(found, names)
    if "missing" in names:
        x[:, names.index("missing")] = np.log1p(x[:, names.index("missing")])
    return x


def _penalty(found: Sequence[Support], variant: Variant) -> np.ndarray:
    factors = np.asarray([s.penalty for s in found])
    if variant.conflicts == "off":
        factors = np.ones_like(factors)
    if variant.aggregate != "joint":
        return factors
    weights = np.asarray([s.weight for s in found])
    if variant.conflicts == "product":
        return np.asarray([factors.prod()])
    return np.asarray([(factors * weights).sum() / max(weights.sum(), 1e-12)])


class Model:
    """The logistic of a variant, fitted (or unfitted), scoring a row from its statements' supports."""

    def __init__(self, variant: Variant, rows: Sequence[Row], found: Sequence[Sequence[Support]]) -> None:
        self.variant = variant
        self.coef, self.intercept = np.ones(len(variant.features)), -float(len(variant.features)) / 2
        if variant.weights == "loso":
            from sklearn.linear_model import LogisticRegression

            units = [(f, r["label"]) for f, r in zip(found, rows, strict=True) if f]
            if variant.aggregate != "joint":  # a statement's own label is known only for one-statement answers
                units = [(f, y) for f, y in units if len(f) == 1]
            x = np.vstack([_design(f, variant) for f, _ in units])
            fitted = LogisticRegression(C=10.0, max_iter=2000).fit(x, [y for _, y in units])
            self.coef, self.intercept = fitted.coef_[0], float(fitted.intercept_[0])
        if "missing" in variant.features:
            self.coef[variant.features.index("missing")] = -abs(self.coef[variant.features.index("missing")])

    def score(self, found: Sequence[Support]) -> float:
        if not found:
            return 1.0  # no claim: the judge's decided case (faithfulness 1.0)
        z = _design(found, self.variant) @ self.coef + self.intercept
        values = 1.0 / (1.0 + np.exp(-z)) * _penalty(found, self.variant)
        return float(values.min() if self.variant.aggregate == "min" else values.mean())


def pair_sets(data: Path) -> dict[str, list[tuple[Row, Row]]]:
    wow = d.begin_attributable(data, "wow")
    dev = d.begin_attributable(data, "cmu") + d.begin_attributable(data, "tc")
    wiki = d.wikieval_supported(data)
    return {
        "WikiEval answer > ungrounded": d.wikieval_pairs(data)["faithfulness"],
        "swap-int BEGIN wow": d.swap_pairs(wow, "internal"),
        "swap-int BEGIN cmu+tc": d.swap_pairs(dev, "internal"),
        "swap-int WikiEval": d.swap_pairs(wiki, "internal"),
        "swap-ext WikiEval": d.swap_pairs(wiki, "external"),
    }


def evaluate(variant: Variant, begin: dict[str, list[Row]], pairs: dict[str, Any], embedder: Embedder) -> dict:
    found = {s: supports(rows, variant, embedder) for s, rows in begin.items()}
    result: dict[str, float | None] = {}
    for held in SOURCES:
        fit_rows = [r for s in SOURCES if s != held for r in begin[s]]
        fit_found = [f for s in SOURCES if s != held for f in found[s]]
        model = Model(variant, fit_rows, fit_found)
        result[f"BEGIN {held}"] = auc([model.score(f) for f in found[held]], [r["label"] for r in begin[held]])
    on_wow = Model(variant, begin["wow"], found["wow"])
    on_dev = Model(variant, begin["cmu"] + begin["tc"], found["cmu"] + found["tc"])
    for name, pair_list in pairs.items():
        model = on_dev if "wow" in name else on_wow
        left = [model.score(f) for f in supports([a for a, _ in pair_list], variant, embedder)]
        right = [model.score(f) for f in supports([b for _, b in pair_list], variant, embedder)]
        result[name] = pairwise_accuracy(left, right)
    return {"variant": variant.name, **result}


def baselines(begin: dict[str, list[Row]], pairs: dict[str, Any], embedder: Embedder) -> list[dict]:
    out = []
    for name, baseline in (("plain token overlap", overlap_answer), ("plain MiniLM cosine", cosine_answer)):
        entry: dict[str, Any] = {"variant": name}
        for source, rows in begin.items():
            entry[f"BEGIN {source}"] = auc([baseline(r, embedder) for r in rows], [r["label"] for r in rows])
        for set_name, pair_list in pairs.items():
            left = [baseline(a, embedder) for a, _ in pair_list]
            entry[set_name] = pairwise_accuracy(left, [baseline(b, embedder) for _, b in pair_list])
        out.append(entry)
    return out


def markdown(entries: Sequence[dict]) -> str:
    columns = [k for k in entries[0] if k != "variant"]
    lines = ["| variant | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for e in entries:
        lines.append(f"| {e['variant']} | " + " | ".join(f"{e[c]:.3f}" for c in columns) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.support_ablation", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=d.DATA, help="the shared data folder (../shared/data)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    embedder = cached_embedder()
    begin = {source: d.begin(args.data, source) for source in SOURCES}
    pairs = pair_sets(args.data)
    entries = baselines(begin, pairs, embedder)
    for variant in VARIANTS:
        entries.append(evaluate(variant, begin, pairs, embedder))
        print(json.dumps(entries[-1]), flush=True)
    save(embedder)
    print(markdown(entries))
    if args.json:
        args.json.write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
