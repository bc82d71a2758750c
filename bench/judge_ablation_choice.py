"""How `bench.judge_ablation` decides: which ladder steps are added, which variant is each metric's default, and the
speed budget the assembled judge must meet (the rules are stated in `bench.judge_ablation`'s docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from bench import judge_ablation_scorers as sc
from bench.judge_ablation_sets import MetricSets
from bench.judge_ablation_stats import Accuracy, Measured, Step, gain
from bench.judge_speed import TARGET_ENCODER_RATE, TARGET_ROWS_PER_S, encoder_rate, judge_rate
from evaluation.local_judge import LocalJudgeSettings

if TYPE_CHECKING:
    from bench.judge_ablation import Ablation

#: Context recall and precision's support variants use faithfulness' support model (one notion of support across
#: the metrics and the generator's groundedness check): the table prints them with it, whatever each rule picks.
SHARES_SUPPORT = ("context_recall", "context_precision")
#: The single baselines (one signal each); "combined" is the two together, a baseline but not a single one.
SINGLE = ("overlap", "cosine")

#: The issue's speed target as a cost: encoder-sentence equivalents a row (15 rows/s at 400 sentences/s).
BUDGET = TARGET_ENCODER_RATE / TARGET_ROWS_PER_S


def signals(m: Measured) -> int:
    """How many plain signals a variant's base combines (a tie on accuracy goes to the fewer, not to timing noise)."""
    return 2 if m.variant.base == "combined" else 1


def significant(g: Accuracy) -> int:
    """+1 when a gain is above the half-width of its paired 95% interval, -1 when below minus it, else 0."""
    return 1 if g.value > g.half_width else -1 if g.value < -g.half_width else 0


def admits(sets: MetricSets, step: Measured) -> bool:
    """Above the half-width of the gain's interval on some deciding set, and not below minus it on any."""
    found = [significant(g) for dev, g in zip(sets.sets, step.gains, strict=True) if dev.decides]
    return 1 in found and -1 not in found


@dataclass(frozen=True)
class Choice:
    default: Measured
    best_single: list[float]
    #: The deciding sets where the default is below the best single baseline (none: the requirement holds).
    short: list[str]


def choose_default(sets: MetricSets, measured: Sequence[Measured]) -> Choice:
    """The smallest variant (`Measured.size`, then the most accurate, then the most rows/s) whose shortfall from the
    best variant of each deciding set is within the half-width of its paired interval, and which is at or above the
    best single baseline on every deciding set (when one is; else the smallest reaching one, with the sets it falls
    short on)."""
    deciding = [i for i, dev in enumerate(sets.sets) if dev.decides]
    best = {i: max(measured, key=lambda m: m.accuracy[i].value) for i in deciding}
    baselines = [m for m in measured if not m.variant.components and m.variant.base in SINGLE]
    single = [max(b.accuracy[i].value for b in baselines) for i in range(len(sets.sets))]

    def reaches(m: Measured) -> bool:
        return all(significant(gain(sets.sets[i], best[i].scored[i], m.scored[i])) <= 0 for i in deciding)

    def short(m: Measured) -> list[str]:
        return [sets.sets[i].name for i in deciding if m.accuracy[i].value < single[i] - 1e-12]

    reaching = [m for m in measured if reaches(m)]
    above = [m for m in reaching if not short(m)]

    def mean_accuracy(m: Measured) -> float:
        return sum(m.accuracy[i].value for i in deciding) / len(deciding)

    chosen = min(above or reaching, key=lambda m: (m.size, -round(mean_accuracy(m), 9), signals(m), -m.rows_per_s))
    return Choice(chosen, single, short(chosen))


@dataclass
class Decision:
    """One metric's default, with the choice the rule made and why the default differs from it (if it does)."""

    ablation: Ablation
    steps: list[Step]
    choice: Choice
    default: Measured
    note: str = ""


def decide(measured: dict[str, tuple[Ablation, list[Step]]]) -> tuple[dict[str, Decision], float]:
    """Each metric's default by `choose_default` (context recall and precision choose between a whole-text base and
    faithfulness' support, `SHARES_SUPPORT`); then the speed budget: while the assembled judge (`assembled`, timed
    on the speed rows, `judge_cost`) costs more than `BUDGET`, the costliest metric that embeds takes the variant
    `choose_default` picks among those that embed nothing. Returns the decisions and the assembled judge's cost."""
    decisions: dict[str, Decision] = {}
    for name, (ablation, steps) in measured.items():
        choice = choose_default(ablation.sets, list(ablation.cache.values()))
        decision = decisions[name] = Decision(ablation, steps, choice, choice.default)
        shared = decisions["faithfulness"].default.variant.components if "faithfulness" in decisions else None
        picked = choice.default.variant.components
        if name in SHARES_SUPPORT and picked and shared is not None and picked != shared:
            decision.default = ablation.measure(sc.Variant(name, "overlap", shared))
            decision.note = f"the rule's own pick: {choice.default.label}; shipped: faithfulness' support model"
    whole = "faithfulness" in decisions  # the assembled judge needs faithfulness' support model
    cost = judge_cost(decisions) if whole else 0.0
    while cost > BUDGET:
        embedding = [d for d in decisions.values() if d.default.variant.embeds]
        if not embedding:
            break
        costly = max(embedding, key=lambda d: d.default.cost)
        lexical = [m for m in costly.ablation.cache.values() if not m.variant.embeds]
        before = costly.default
        costly.default = choose_default(costly.ablation.sets, lexical).default
        costly.note = (
            f"the rule's own pick: {before.label}, {before.cost:.1f} encoder sentences a row alone; the judge with it "
            f"cost {cost:.1f} > {BUDGET:.1f}: the rule's pick among the variants that embed nothing"
        )
        cost = judge_cost(decisions) if whole else 0.0
    return decisions, cost


def assembled(decisions: dict[str, Decision]) -> LocalJudgeSettings:
    """The local judge's settings with every metric's default: the support model of faithfulness' default (fitted on
    BEGIN's tune half), and the relevance recipes."""
    faithfulness = decisions["faithfulness"]
    components = faithfulness.default.variant.components
    support = sc.support_settings(components, faithfulness.ablation.support_coefficients(components))
    recipes: dict[str, Any] = {
        name: getattr(sc.relevance_settings(name, d.default.variant.base, d.default.variant.components), name)
        for name, d in decisions.items()
        if name in ("answer_relevancy", "context_relevance")
    }
    recipes |= {name: reference_base(d.default.variant) for name, d in decisions.items() if name in SHARES_SUPPORT}
    return replace(support, **recipes)


def reference_base(variant: sc.Variant) -> str:
    """Context recall or precision's `LocalJudgeSettings` base for a variant: "support" for the support model (which
    must be faithfulness' default: `SHARES_SUPPORT`), else the whole-text base."""
    return "support" if variant.components else variant.base


def judge_cost(decisions: dict[str, Decision], repeats: int = 2) -> float:
    """Encoder-sentence equivalents a row of the assembled judge, five RAGAS metrics on the speed rows (the best of
    `repeats` timings, each beside a fresh measure of the encoder's rate)."""
    ablation = next(iter(decisions.values())).ablation
    frame = pd.DataFrame(ablation.speed)
    costs = []
    for _ in range(repeats):
        rate = encoder_rate(ablation.embedder, ablation.data)
        costs.append(rate / judge_rate(ablation.embedder, frame, assembled(decisions)))
    return min(costs)
