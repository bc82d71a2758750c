"""What `bench.judge_ablation` prints and writes: each metric's table, its default and the JSON of every variant,
and the shipped parameter files of the defaults."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bench import judge_ablation_scorers as sc
from bench.judge_ablation_choice import Decision
from bench.judge_ablation_sets import SPLIT_SEED, MetricSets, Row
from bench.judge_ablation_stats import Accuracy, Measured
from ragtest_core.support import JUDGE_SUPPORT_FILE


def write_support(components: frozenset[str], rows: Sequence[Row], fits: dict[Any, Any]) -> None:
    """The chosen support model, with its provenance, as the local judge's shipped parameter file."""
    features = frozenset(components & set(sc.SUPPORT_FEATURES))
    payload = {
        **fits[features],
        "conflicts": "conflicts" in components,
        "evidence_splitter": "pysbd" if "pysbd" in components else "rules",
        "features": [
            "lexical_anywhere",
            *(sc.SUPPORT_FEATURES[c] for c in ("window", "semantic", "missing") if c in features),
        ],
        "unit": "a whole response: its statements' pooled features (ragtest_core.support.pooled_features)",
        "fit_set": "BEGIN dev (../shared/data/begin/begin_dev.jsonl), Generic excluded, the tune half of "
        f"bench.judge_ablation_sets.half_of (seed {SPLIT_SEED!r}), responses that make a claim",
        "n": len(rows),
        "positives": sum(r["label"] for r in rows),
        "model": "sklearn LogisticRegression(C=10)",
        "chosen_by": "bench/judge_ablation.py (the faithfulness default)",
        "script": "python -m bench.judge_ablation --write",
    }
    JUDGE_SUPPORT_FILE.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {JUDGE_SUPPORT_FILE}")


def write_relevance(defaults: dict[str, sc.Variant]) -> None:
    """The chosen relevance recipes, and context recall and precision's bases, as the local judge's shipped file
    (`evaluation.local_judge.RELEVANCE_FILE`)."""
    from bench.judge_ablation_choice import SHARES_SUPPORT, reference_base
    from evaluation.local_judge import RELEVANCE_FILE

    payload: dict[str, Any] = {
        name: {"base": reference_base(v)}
        if name in SHARES_SUPPORT
        else getattr(sc.relevance_settings(name, v.base, v.components), name).as_dict()
        for name, v in defaults.items()
    }
    payload["chosen_by"] = "bench/judge_ablation.py (each metric's default; docs/local-judge.md)"
    payload["script"] = "python -m bench.judge_ablation --write"
    RELEVANCE_FILE.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RELEVANCE_FILE}")


# -- report ---------------------------------------------------------------------------------------------------------


def _cell(a: Accuracy) -> str:
    return f"{a.value:.3f} [{a.low:.3f}, {a.high:.3f}]"


def table(sets: MetricSets, rows: Sequence[tuple[str, Measured]], default: Measured) -> str:
    head = (
        "| step | variant | "
        + " | ".join(s.label + f" (n={s.size})" for s in sets.sets)
        + " | rows/s | rows/s per 1k encoder sentences/s | added |"
    )
    lines = [f"### {sets.metric}", "", head, "|---" * (len(sets.sets) + 5) + "|"]
    for step, m in rows:
        cells = []
        for i, a in enumerate(m.accuracy):
            cell = _cell(a)
            if m.gains:
                g = m.gains[i]
                cell += f" ({g.value:+.3f} [{g.low:+.3f}, {g.high:+.3f}])"
            cells.append(cell)
        added = "-" if m.admitted is None else ("**yes**" if m.admitted else "no")
        name = f"**{m.label}** (default)" if m.variant == default.variant else m.label
        lines.append(
            f"| {step} | {name} | "
            + " | ".join(cells)
            + f" | {m.rows_per_s:.1f} | {1000 * m.rows_per_s / m.encoder_rate:.1f} | {added} |"
        )
    return "\n".join(lines)


def report_metric(decision: Decision) -> dict[str, Any]:
    """One metric's table and default."""
    ablation, rows, choice, default = decision.ablation, list(decision.steps), decision.choice, decision.default
    sets = ablation.sets
    measured = list(ablation.cache.values())
    if all(m.variant != default.variant for _, m in rows):
        rows.append(("default", default))
    print(table(sets, rows, default))
    short = [
        s.name
        for s, a, v in zip(sets.sets, default.accuracy, choice.best_single, strict=True)
        if s.decides and a.value < v - 1e-12
    ]
    above = "yes" if not short else "no, below it on " + "; ".join(short)
    note = f" ({decision.note})" if decision.note else ""
    print(
        f"\ndefault: {default.label}{note}; at or above the best single baseline on every deciding set: {above} "
        f"({len(measured)} variants measured)\n",
        flush=True,
    )
    return {
        "metric": sets.metric,
        "sets": [
            {"name": s.name, "usage": s.usage, "n": s.size, "kind": s.kind, "decides": s.decides} for s in sets.sets
        ],
        "rows": [_row_json(step, m) for step, m in rows],
        "every_variant": [_row_json("variant", m) for m in measured],
        "default": {
            "variant": default.label,
            "base": default.variant.base,
            "components": sorted(default.variant.components),
            "note": decision.note,
        },
        "rule_pick": {"variant": choice.default.label, "components": sorted(choice.default.variant.components)},
        "best_single_baseline": choice.best_single,
        "below_best_single_baseline_on": short,
    }


def _row_json(step: str, m: Measured) -> dict[str, Any]:
    return {
        "step": step,
        "variant": m.label,
        "base": m.variant.base,
        "components": sorted(m.variant.components),
        "accuracy": [[a.value, a.low, a.high] for a in m.accuracy],
        "gain": [[g.value, g.low, g.high] for g in m.gains],
        "rows_per_s": m.rows_per_s,
        "admitted": m.admitted,
    }
