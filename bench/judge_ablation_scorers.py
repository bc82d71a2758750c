"""The scorers of the local-judge ablation (`bench.judge_ablation`): plain baselines and the judge's components.

A variant is a base ("overlap": the share of content tokens found in the other text; "cosine": the MiniLM cosine of
the two whole texts; "combined": both) plus a set of the judge's components. Support-based metrics (faithfulness,
context recall and precision) are scored by the product's own metric code (`evaluation.metrics`) under a
`LocalJudgeSettings` built from the components, so their rows/s are the product's; the relevance metrics are scored
the same way (`RelevanceSettings`), and so are context recall and precision's plain baselines (the product's
whole-text bases, `LocalJudgeSettings.context_recall`). The other plain baselines are computed here.

Every scorer has `texts(row)` (what it embeds; the runner embeds all rows' texts in one batch first, as the engine
does) and `score(row)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from bench.judge_ablation_sets import Row
from evaluation.engine import embed_in_batches, score_samples
from evaluation.local_judge import LocalJudge, LocalJudgeSettings, RelevanceSettings
from evaluation.metric import Metric
from evaluation.refusal import is_refusal
from evaluation.registry import get_metric
from evaluation.sample import Sample
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.embeddings import Embedder
from ragtest_core.relevance import token_share
from ragtest_core.support import Evidence, SupportParams, claim_support, pooled_features

BASES = ("overlap", "cosine", "combined")
SUPPORT_METRICS = ("faithfulness", "context_recall", "context_precision")


@dataclass(frozen=True)
class Variant:
    metric: str
    base: str
    components: frozenset[str] = frozenset()

    def with_(self, *names: str) -> Variant:
        return replace(self, components=self.components | frozenset(names))

    @property
    def embeds(self) -> bool:
        """Whether the variant embeds anything: a cosine base, or the support model's semantic feature."""
        if self.metric in SUPPORT_METRICS and self.components:
            return "semantic" in self.components
        return self.base != "overlap"

    def name(self, order: Sequence[str]) -> str:
        parts = [c for c in order if c in self.components]
        return self.base + "".join(f" + {c}" for c in parts)


class Scorer(Protocol):
    def texts(self, row: Row) -> list[str]: ...

    def score(self, row: Row) -> float | None: ...


# -- plain pieces ---------------------------------------------------------------------------------------------------


def cosine(embedder: Embedder, left: str, right: str) -> float:
    return float(embedder.similarity([left], [right])[0, 0])


def combine(base: str, lexical: Callable[[], float], embedding: Callable[[], float]) -> float:
    if base == "overlap":
        return lexical()
    if base == "cosine":
        return embedding()
    return 0.5 * (lexical() + embedding())


@dataclass
class PairScorer:
    """A baseline comparing two texts of a row (`left(row)` against `right(row)`)."""

    base: str
    embedder: Embedder
    left: Callable[[Row], str]
    right: Callable[[Row], str]

    def texts(self, row: Row) -> list[str]:
        return [] if self.base == "overlap" else [self.left(row), self.right(row)]

    def score(self, row: Row) -> float | None:
        a, b = self.left(row), self.right(row)
        return combine(self.base, lambda: token_share(a, b), lambda: cosine(self.embedder, a, b))


def _joined(row: Row) -> str:
    return " ".join(row["contexts"])


PAIR_TEXTS: dict[str, tuple[Callable[[Row], str], Callable[[Row], str]]] = {
    "faithfulness": (lambda r: r["answer"], _joined),
    "answer_relevancy": (lambda r: r["question"], lambda r: r["answer"]),
    "context_relevance": (lambda r: r["question"], _joined),
}


# -- support-based metrics through the product ----------------------------------------------------------------------

SUPPORT_FEATURES = {"window": "lexical", "semantic": "semantic", "missing": "missing_weight"}


def support_settings(components: frozenset[str], coefficients: dict[str, float]) -> LocalJudgeSettings:
    """The judge's settings for a set of support components, with fitted coefficients."""
    fitted: dict[str, Any] = dict(coefficients)
    params = replace(SupportParams(), **fitted, conflicts="conflicts" in components)
    splitter = "pysbd" if "pysbd" in components else "rules"
    return LocalJudgeSettings(
        support=params, evidence_splitter=splitter, context_recall="support", context_precision="support"
    )


def reference_settings(metric: str, base: str) -> LocalJudgeSettings:
    """The judge's settings for context recall or precision on a whole-text base (`evaluation.local_scoring`)."""
    return LocalJudgeSettings(**{metric: base})  # type: ignore[arg-type]


def support_features(rows: Sequence[Row], components: frozenset[str], embedder: Embedder) -> list[list[float] | None]:
    """Per row, the model inputs of its statements taken together (None: a refusal or no claim): the share found
    anywhere, then the window share, the semantic similarity, log(1 + missing weight) as the components ask."""
    settings = support_settings(components, {})
    judge = LocalJudge(embedder, settings)
    semantic = "semantic" in components
    params = replace(SupportParams(), b_window=1.0 if "window" in components else 0.0, conflicts=False)
    out: list[list[float] | None] = []
    for r in rows:
        claims = [] if is_refusal(r["answer"]) else judge.claims(r["answer"])
        if not claims:
            out.append(None)
            continue
        split = judge.sentences_of(r["contexts"])
        vectors_of = judge.vectors(split.sentences) if semantic and split.sentences else None
        evidence = Evidence(split.sentences, split.context_of, vectors_of)
        vectors = judge.vectors(claims) if semantic else None
        found = [
            claim_support(c, evidence, None if vectors is None else vectors[i], r["question"], params)
            for i, c in enumerate(claims)
        ]
        pooled = pooled_features(found)
        if pooled is None:
            out.append(None)
            continue
        window, anywhere, cos, missing = pooled
        x = [anywhere]
        x += [window] if "window" in components else []
        x += [cos] if semantic else []
        x += [float(np.log1p(missing))] if "missing" in components else []
        out.append(x)
    return out


def fit_support(rows: Sequence[Row], components: frozenset[str], embedder: Embedder) -> dict[str, float]:
    """The logistic coefficients of a component set, fitted on `rows` (scikit-learn, C=10, as the shipped fit)."""
    from sklearn.linear_model import LogisticRegression

    features = support_features(rows, components, embedder)
    kept = [(x, r["label"]) for x, r in zip(features, rows, strict=True) if x is not None]
    model = LogisticRegression(C=10.0, max_iter=2000).fit([x for x, _ in kept], [y for _, y in kept])
    names = ["b_any", *(f"b_{n}" for n in ("window", "sem", "missing") if _feature(n) in components)]
    coef = dict(zip(names, map(float, model.coef_[0]), strict=True))
    if "b_missing" in coef:
        coef["b_missing"] = abs(coef["b_missing"])  # the model subtracts b_missing * log(1 + missing weight)
    return {"b0": float(model.intercept_[0]), **coef}


def _feature(short: str) -> str:
    return {"sem": "semantic"}.get(short, short)


@dataclass
class ProductScorer:
    """A metric scored by the product's own local-judge code under the given settings."""

    metric: Metric
    settings: LocalJudgeSettings
    embedder: Embedder

    def run(self, rows: Sequence[Row]) -> list[float | None]:
        samples = [Sample.from_row(r) for r in rows]
        judge = LocalJudge(self.embedder, self.settings)
        results = run_sync(score_samples([self.metric], judge, samples, None))
        return [r[self.metric.name].value for r in results]


# -- relevance metrics through the product -------------------------------------------------------------------------


def relevance_settings(metric: str, base: str, components: frozenset[str]) -> LocalJudgeSettings:
    """The judge's settings for a relevance variant: its base and components (`evaluation.local_relevance`)."""
    rules = RelevanceSettings(
        base=base,
        sentences="sentences" in components,
        centring="centring" in components,
        readings="readings" in components,
        parts="parts" in components,
        noncommittal="noncommittal" in components,
        restates="restates" in components,
        splitter="pysbd" if "pysbd" in components else "rules",
    )
    return LocalJudgeSettings(**{metric: rules})  # type: ignore[arg-type]


def run_scorer(scorer: Scorer, rows: Sequence[Row], embedder: Embedder) -> list[float | None]:
    """Embed every row's texts in one batch (as the engine does), then score each row."""
    embed_in_batches(embedder, [t for r in rows for t in scorer.texts(r)])
    return [scorer.score(r) for r in rows]


def metric(name: str) -> Metric:
    return get_metric(name)
