"""The local judge built by ablation: for each local metric, the simplest scorers, then the judge's components
added one at a time, each with its accuracy on the development sets (95% bootstrap interval) and its rows/s.

    python -m bench.judge_ablation [--data ../shared/data] [--metrics faithfulness,...] [--json OUT] [--write]

Protocol (the split fixed before the first run; the decision rules as below):
- Data: `bench.judge_ablation_sets` (BEGIN's dev split in halves by a seeded hash: the tune half fits each variant's
  logistic weights, every BEGIN figure is the held-out half; WikiEval pairwise as the RAGAS paper's agreement, over
  all 50 rows, in-sample for the earlier designs tuned on it; synthetic pairings built from the rows). Each set says
  whether it decides or is only reported (`DevSet.decides`).
- Baselines: token overlap (the share of content tokens found in the other text), MiniLM cosine of the two whole
  texts, and the two combined (their mean; for faithfulness a logistic of both fitted on BEGIN's tune half). Context
  recall and precision's are the product's whole-text bases: the reference against each context embedded alone
  (recall: the best cosine; precision: graded average precision of the cosines).
- Variants: a base plus a set of the judge's components (`COMPONENTS`), scored by the product's own metric code
  under the `LocalJudgeSettings` that switch them (`bench.judge_ablation_scorers`).
- Ladders: from each base the metric's components apply to, in the order of `COMPONENTS`, a candidate is the current
  variant plus one component (and the components it needs). It is added when it raises accuracy on some deciding set
  by more than the half-width of the 95% interval of that gain (a paired bootstrap: both variants on the same
  resamples), and lowers none by more than that; passes repeat until one adds nothing. (The interval of the gain,
  not of the accuracy alone: at 30 of 30 pairs won the percentile interval of an accuracy is [1, 1], and any gain
  would count.)
- Default: every variant (each base with every set of its components) is measured; the default is the smallest
  (first: whether it embeds anything, the dominant cost; then the number of components; then the highest mean
  accuracy on the deciding sets, then the most rows/s) that falls short of the best variant of each deciding set by
  no more than the half-width of that shortfall's paired interval, and is at or above the best single baseline (token
  overlap or MiniLM cosine) on every deciding set (else the smallest that reaches the best, and the table says where
  it is below).
  Context recall and precision choose between their whole-text bases (the product's, `LocalJudgeSettings`) and
  the support model; a support variant ships with faithfulness' support model (`SHARES_SUPPORT`). Ties on accuracy
  go to the base with fewer signals ("combined" has two), then to the most rows/s.
- Speed budget: rows/s on 50 WikiEval rows (new text: an empty embedding memo and empty split caches), as
  encoder-sentence equivalents a row (the encoder's own rate, re-measured through the run, over the rows/s). While the
  defaults together cost more than `BUDGET` (15 rows/s where the encoder does 400 sentences/s), the costliest metric
  that embeds takes its default among the variants that embed nothing (`decide`). `bench.judge_speed` measures the
  assembled judge.

`--write` writes the defaults where the product reads them: the support model (fitted on BEGIN's tune half) to
`ragtest_core/params/local_judge_support.json`, the relevance recipes and context recall and precision's bases to
`local_judge_relevance.json`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, combinations
from pathlib import Path
from typing import Any

from bench import judge_ablation_scorers as sc
from bench import judge_data as d
from bench.embedding_cache import cached_embedder, save
from bench.judge_ablation_choice import BUDGET, admits, decide
from bench.judge_ablation_report import report_metric, write_relevance, write_support
from bench.judge_ablation_sets import DevSet, MetricSets, Row, all_sets, speed_rows
from bench.judge_ablation_stats import Measured, Scored, Step, accuracy, gain
from bench.judge_speed import TARGET_ENCODER_RATE, TARGET_ROWS_PER_S, encoder_rate, fresh_embedder, reset_caches
from ragtest_core.embeddings import Embedder
from ragtest_core.support import JUDGE_SUPPORT_FILE

#: The encoder's rate is re-measured every this many timings (the machine's load drifts).
RATE_EVERY = 10
#: Metrics whose plain baselines are the product's whole-text bases (`LocalJudgeSettings.context_recall`).
REFERENCE_METRICS = ("context_recall", "context_precision")


@dataclass(frozen=True)
class Component:
    name: str
    needs: tuple[str, ...] = ()
    bases: tuple[str, ...] = sc.BASES
    what: str = ""


SUPPORT = (
    Component("statements", bases=("overlap",), what="the judge's statements (claims, hedges, refusals) and keys"),
    Component("missing", ("statements",), ("overlap",), "log(1 + weight of the words found nowhere)"),
    Component("window", ("statements",), ("overlap",), "best 1-2 sentence window's share (a model input)"),
    Component("semantic", ("statements",), ("overlap",), "best claim-sentence MiniLM cosine (a model input)"),
    Component("conflicts", ("statements",), ("overlap",), "contradiction factors (swapped entity, number, date)"),
    Component("pysbd", ("statements",), ("overlap",), "contexts cut by pysbd instead of the rules"),
)
COMPONENTS: dict[str, tuple[Component, ...]] = {
    "faithfulness": SUPPORT,
    "context_recall": SUPPORT,
    "context_precision": SUPPORT,
    "answer_relevancy": (
        Component("sentences", what="the best answer sentence instead of the whole answer"),
        Component("centring", bases=("cosine", "combined"), what="centred cosine, Platt-calibrated"),
        Component("readings", ("sentences",), ("cosine", "combined"), "each sentence also read without clauses"),
        Component("parts", what="x the share of the question's parts addressed"),
        Component("noncommittal", what="a noncommittal answer scores 0"),
        Component("restates", what="an answer that only restates the question scores 0"),
    ),
    "context_relevance": (
        Component("sentences", what="the mean over context sentences instead of the whole context"),
        Component("centring", bases=("cosine", "combined"), what="centred cosine, Platt-calibrated"),
        Component("pysbd", ("sentences",), what="contexts cut by pysbd instead of the rules"),
    ),
}


class Ablation:
    """One metric's variants, scored on its sets, fitted on its fit rows, timed on the speed rows."""

    def __init__(
        self, sets: MetricSets, embedder: Embedder, speed: list[Row], fits: dict[Any, Any], data: Path
    ) -> None:
        self.sets, self.embedder, self.speed, self.fits, self.data = sets, embedder, speed, fits, data
        self.rate, self.timed = 0.0, 0
        self.order = [c.name for c in COMPONENTS[sets.metric]]
        self.cache: dict[sc.Variant, Measured] = {}

    # -- scorers ------------------------------------------------------------------------------------------------

    def support_coefficients(self, components: frozenset[str]) -> dict[str, float]:
        key = frozenset(components & set(sc.SUPPORT_FEATURES))
        if key not in self.fits:
            self.fits[key] = sc.fit_support(self.fits["__rows__"], key, self.embedder)
        return dict(self.fits[key])

    def scores(self, variant: sc.Variant, rows: Sequence[Row], embedder: Embedder) -> list[float | None]:
        metric, c = variant.metric, variant.components
        if c and metric in sc.SUPPORT_METRICS:
            settings = sc.support_settings(c, self.support_coefficients(c))
            return sc.ProductScorer(sc.metric(metric), settings, embedder).run(rows)
        if c:
            settings = sc.relevance_settings(metric, variant.base, c)
            return sc.ProductScorer(sc.metric(metric), settings, embedder).run(rows)
        if metric in REFERENCE_METRICS:  # the product's own whole-text bases
            settings = sc.reference_settings(metric, variant.base)
            return sc.ProductScorer(sc.metric(metric), settings, embedder).run(rows)
        return sc.run_scorer(self._baseline(variant, embedder), rows, embedder)

    def _baseline(self, variant: sc.Variant, embedder: Embedder) -> sc.Scorer:
        metric, base = variant.metric, variant.base
        if metric == "faithfulness" and base == "combined":
            return self._combined_faithfulness(embedder)
        left, right = sc.PAIR_TEXTS[metric]
        return sc.PairScorer(base, embedder, left, right)

    def _combined_faithfulness(self, embedder: Embedder) -> sc.Scorer:
        if "__combined__" not in self.fits:
            self.fits["__combined__"] = fit_combined(self.fits["__rows__"], self.embedder)
        return CombinedFaithfulness(embedder, *self.fits["__combined__"])

    # -- measuring ----------------------------------------------------------------------------------------------

    def measure(self, variant: sc.Variant) -> Measured:
        if variant in self.cache:
            return self.cache[variant]
        scored = [self._score_set(variant, dev) for dev in self.sets.sets]
        found = Measured(
            variant,
            variant.name(self.order),
            [accuracy(dev, s) for dev, s in zip(self.sets.sets, scored, strict=True)],
            scored,
            self.rows_per_s(variant),
            self.rate,
        )
        self.cache[variant] = found
        return found

    def _score_set(self, variant: sc.Variant, dev: DevSet) -> Scored:
        if dev.kind == "auc":
            return Scored(rows=tuple(self.scores(variant, dev.rows, self.embedder)))
        preferred = self.scores(variant, [a for a, _ in dev.pairs], self.embedder)
        other = self.scores(variant, [b for _, b in dev.pairs], self.embedder)
        return Scored(preferred=tuple(preferred), other=tuple(other))

    def rows_per_s(self, variant: sc.Variant) -> float:
        """Rows/s on the speed rows with new text: an empty embedding memo and empty caches (the encoder's own rate
        re-measured every `RATE_EVERY` timings)."""
        if self.timed % RATE_EVERY == 0:
            self.rate = encoder_rate(self.embedder, self.data)
        self.timed += 1
        reset_caches()
        embedder = fresh_embedder(self.embedder)
        started = time.perf_counter()
        self.scores(variant, self.speed, embedder)
        return len(self.speed) / (time.perf_counter() - started)

    # -- the ladder ---------------------------------------------------------------------------------------------

    def baselines(self) -> list[Measured]:
        return [self.measure(sc.Variant(self.sets.metric, base)) for base in sc.BASES]

    def ladder(self, base: str) -> list[Measured]:
        """Passes over the components in order, each adding those that pass `admits`, until a pass adds none."""
        current = self.measure(sc.Variant(self.sets.metric, base))
        steps: list[Measured] = []
        tried: set[sc.Variant] = set()
        added = True
        while added:
            added = False
            for component in COMPONENTS[self.sets.metric]:
                if base not in component.bases or component.name in current.variant.components:
                    continue
                variant = current.variant.with_(component.name, *component.needs)
                if variant in tried:
                    continue
                tried.add(variant)
                step = Measured(**{**self.measure(variant).__dict__})
                step.gains = [
                    gain(dev, a, b) for dev, a, b in zip(self.sets.sets, step.scored, current.scored, strict=True)
                ]
                step.admitted = admits(self.sets, step)
                steps.append(step)
                if step.admitted:
                    current, added = self.measure(variant), True
        return steps

    def bases(self) -> list[str]:
        return sorted({b for c in COMPONENTS[self.sets.metric] for b in c.bases}, key=sc.BASES.index)

    def every_variant(self) -> list[sc.Variant]:
        """Every base with every set of its components that holds what each component needs."""
        found = []
        for base in self.bases():
            names = [c.name for c in COMPONENTS[self.sets.metric] if base in c.bases]
            needs = {c.name: set(c.needs) for c in COMPONENTS[self.sets.metric]}
            for chosen in chain.from_iterable(combinations(names, k) for k in range(len(names) + 1)):
                if all(needs[c] <= set(chosen) for c in chosen):
                    found.append(sc.Variant(self.sets.metric, base, frozenset(chosen)))
        return found


@dataclass
class CombinedFaithfulness:
    embedder: Embedder
    coef: tuple[float, float]
    intercept: float

    def texts(self, row: Row) -> list[str]:
        return [row["answer"], " ".join(row["contexts"])]

    def score(self, row: Row) -> float | None:
        overlap = sc.token_share(row["answer"], " ".join(row["contexts"]))
        cos = sc.cosine(self.embedder, row["answer"], " ".join(row["contexts"]))
        return float(self.coef[0] * overlap + self.coef[1] * cos + self.intercept)


def fit_combined(rows: Sequence[Row], embedder: Embedder) -> tuple[tuple[float, float], float]:
    from sklearn.linear_model import LogisticRegression

    x = [
        [
            sc.token_share(r["answer"], " ".join(r["contexts"])),
            sc.cosine(embedder, r["answer"], " ".join(r["contexts"])),
        ]
        for r in rows
    ]
    model = LogisticRegression(C=10.0, max_iter=2000).fit(x, [r["label"] for r in rows])
    return (float(model.coef_[0][0]), float(model.coef_[0][1])), float(model.intercept_[0])


def measure_metric(
    sets: MetricSets, embedder: Embedder, speed: list[Row], fits: dict, data: Path
) -> tuple[Ablation, list[Step]]:
    """Every variant of one metric measured, and its ladders' steps."""
    ablation = Ablation(sets, embedder, speed, fits, data)
    rows: list[Step] = [("baseline", b) for b in ablation.baselines()]
    for base in ablation.bases():
        rows += [(f"ladder from {base}", step) for step in ablation.ladder(base)]
    for variant in ablation.every_variant():
        ablation.measure(variant)
    return ablation, rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_ablation", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=d.DATA, help="the shared data folder (../shared/data)")
    parser.add_argument("--metrics", default=",".join(COMPONENTS), help="comma-separated metrics")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"write the defaults: the support model to {JUDGE_SUPPORT_FILE.name}, the relevance recipes beside it",
    )
    args = parser.parse_args(argv)
    if args.write and set(COMPONENTS) - set(args.metrics.split(",")):
        parser.error("--write needs every metric: the defaults are decided together (the speed budget)")
    started = time.perf_counter()
    embedder = cached_embedder()
    sets = all_sets(args.data)
    speed = speed_rows(args.data)
    rate = encoder_rate(embedder, args.data)
    print(f"MiniLM encoder: {rate:.0f} short sentences/s on this machine now (fresh memo)\n", flush=True)
    fits: dict[Any, Any] = {"__rows__": sets["faithfulness"].fit_rows}
    names = args.metrics.split(",")
    measured = {name: measure_metric(sets[name], embedder, speed, fits, args.data) for name in names}
    decisions, cost = decide(measured)
    out = [report_metric(decision) for decision in decisions.values()]
    if cost:  # the assembled judge is timed only when faithfulness (its support model) was measured
        print(
            f"the default judge, five RAGAS metrics together: {cost:.1f} encoder sentences a row (budget {BUDGET:.1f}:"
            f" {TARGET_ROWS_PER_S:.0f} rows/s where the encoder does {TARGET_ENCODER_RATE:.0f} sentences/s)"
        )
    save(embedder)
    if args.write:
        write_support(decisions["faithfulness"].default.variant.components, sets["faithfulness"].fit_rows, fits)
        recipes = ("answer_relevancy", "context_relevance", "context_recall", "context_precision")
        write_relevance({name: decisions[name].default.variant for name in recipes})
    print(f"time: {time.perf_counter() - started:.0f} s")
    if args.json:
        payload = {
            "encoder_sentences_per_s": rate,
            "metrics": out,
            "fits": {",".join(sorted(k)): v for k, v in fits.items() if isinstance(k, frozenset)},
        }
        args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
