"""Regression gates for CI: `compare --fail-if` and `evaluate --fail-under` (the rules in full, with examples:
docs/compare-and-ci.md). Both fail only on a *significant* shortfall:

- `--fail-if` is judged by compare's own decision rule (`evaluation.compare_stats.significant_direction`), so it
  never fails where the table says "too few changed rows" or "no significant change": a rule fails on a significant
  drop whose interval's upper bound also lies below the threshold. With human labels on both runs, the
  prediction-powered change (`ragtest.compare_ppi`) is judged instead.
- `--fail-under` fails when the upper bound of the interval of the mean lies below the floor.
- For a lower-is-better metric the rules turn round (`>` on a change, `<=` on a mean: a significant rise fails).

A gate on a metric with fewer than 2 scored rows fails; one naming a metric the run did not score is exit 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluation.compare_stats import interval_direction, passes_gate
from ragtest.comparison import Comparison
from ragtest_core.errors import RagtestError

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2

_FAIL_IF = re.compile(r"^\s*([\w@.-]+)\s*(<|>)\s*([-+]?\d*\.?\d+)\s*$")
_FAIL_UNDER = re.compile(r"^\s*([\w@.-]+)\s*(=|>=|:|<=)\s*([-+]?\d*\.?\d+)\s*$")


@dataclass(frozen=True)
class GateRule:
    metric: str
    threshold: float
    #: "<" (a drop below the threshold fails) or ">" (a rise above it fails; for lower-is-better metrics).
    op: str = "<"

    @property
    def upward(self) -> bool:
        """True when the rule guards against a rise (`>` on a change, `<=` on a mean)."""
        return self.op in (">", "<=")


@dataclass(frozen=True)
class GateResult:
    rule: GateRule
    passed: bool
    message: str


def _parse(text: str, pattern: re.Pattern[str], flag: str, example: str) -> list[GateRule]:
    rules = []
    for part in (p for p in text.split(",") if p.strip()):
        found = pattern.match(part)
        if found is None:
            raise RagtestError(f"{flag}: cannot read {part.strip()!r}; write e.g. {example}")
        op = found.group(2)
        rules.append(GateRule(found.group(1), float(found.group(3)), op if op in ("<", ">", "<=") else "<"))
    if not rules:
        raise RagtestError(f"{flag} needs at least one rule, e.g. {example}")
    return rules


def parse_fail_if(text: str) -> list[GateRule]:
    """`"faithfulness<-0.02,context_recall<-0.05"` -> one rule per metric (threshold on the change)."""
    return _parse(text, _FAIL_IF, "--fail-if", '"faithfulness<-0.02,context_recall<-0.05"')


def parse_fail_under(text: str) -> list[GateRule]:
    """`"faithfulness=0.8,context_recall=0.7"` -> one rule per metric (threshold on the mean)."""
    return _parse(text, _FAIL_UNDER, "--fail-under", '"faithfulness=0.8,context_recall=0.7"')


def check_rule_metrics(rules: Sequence[GateRule], known: Sequence[str], flag: str) -> None:
    """A usage error when a rule names a metric that is not (or will not be) scored."""
    missing = [r.metric for r in rules if r.metric not in known]
    if missing:
        raise RagtestError(f"{flag} names {', '.join(missing)}, which this run has no scores for: {', '.join(known)}")


def check_fail_if(comparison: Comparison, rules: Sequence[GateRule]) -> list[GateResult]:
    """Each rule against the comparison, by the table's own decision rule: fails only on a change the table calls
    significant, in the guarded direction, whose interval lies wholly past the threshold."""
    check_rule_metrics(rules, list(comparison.metrics), "--fail-if")
    results = []
    for rule in rules:
        c = comparison.ppi.get(rule.metric)  # both runs labelled: the prediction-powered change is judged
        if c is not None and c.ci_low is not None and c.ci_high is not None and c.change is not None:
            span = f"PPI change {c.change:+.3f} with {c.n_labels} labels, 95% interval [{c.ci_low:+.3f}, "
            direction = interval_direction(c.ci_low, c.ci_high)  # significant when it excludes 0 (the PPI verdict)
            results.append(change_gate(rule, direction, c.ci_low, c.ci_high, f"{span}{c.ci_high:+.3f}]: {c.verdict}"))
            continue
        stats = comparison.metrics[rule.metric].overall
        if stats.ci_high is None or stats.ci_low is None or stats.difference is None:
            results.append(GateResult(rule, False, f"{rule.metric}: FAIL, only {stats.n} paired row(s) scored"))
            continue
        p_value = "-" if stats.p_value is None else f"{stats.p_value:.3f}"
        span = (
            f"change {stats.difference:+.3f}, 95% interval [{stats.ci_low:+.3f}, {stats.ci_high:+.3f}], "
            f"p {p_value}, W/L/T {stats.wins}/{stats.losses}/{stats.ties}: {stats.verdict}"
        )
        results.append(change_gate(rule, stats.direction, stats.ci_low, stats.ci_high, span))
    return results


def change_gate(rule: GateRule, direction: int, low: float, high: float, span: str) -> GateResult:
    """A --fail-if rule on a change (`evaluation.compare_stats.passes_gate`): `<` fails on a significant drop
    past the threshold, `>` on a significant rise past it; `direction` is the decision rule's reading."""
    passed = passes_gate(direction, low, high, rule.threshold, rule.upward)
    if passed:
        verdict = "pass"
    elif rule.upward:
        verdict = f"FAIL, a significant rise: even the lower bound is above {rule.threshold:+g}"
    else:
        verdict = f"FAIL, a significant drop: even the upper bound is below {rule.threshold:+g}"
    return GateResult(rule, passed, f"{rule.metric} {rule.op} {rule.threshold:+g}: {verdict} ({span})")


def check_fail_under(summary: Mapping[str, Mapping[str, Any]], rules: Sequence[GateRule]) -> list[GateResult]:
    """Each rule against a run's summary metrics: fails when the mean's interval lies wholly below the threshold."""
    check_rule_metrics(rules, list(summary), "--fail-under")
    results = []
    for rule in rules:
        entry = summary[rule.metric]
        high, mean = entry.get("ci_high"), entry.get("mean")
        if high is None or mean is None:
            rows = entry.get("rows_scored", 0)
            results.append(GateResult(rule, False, f"{rule.metric}: FAIL, only {rows} row(s) scored"))
            continue
        low = entry.get("ci_low")
        span = f"mean {mean:.3f}, 95% interval [{low:.3f}, {high:.3f}]"
        if rule.upward:  # a ceiling, for a metric where lower is better
            passed, op, side = low is None or low <= rule.threshold, "<=", "above"
        else:
            passed, op, side = high >= rule.threshold, ">=", "below"
        verdict = "pass" if passed else f"FAIL, significantly {side} {rule.threshold:g}"
        results.append(GateResult(rule, passed, f"{rule.metric} {op} {rule.threshold:g}: {verdict} ({span})"))
    return results


def gate_exit_code(results: Sequence[GateResult]) -> int:
    return EXIT_OK if all(r.passed for r in results) else EXIT_GATE_FAILED


def format_gate(results: Sequence[GateResult]) -> str:
    failed = sum(1 for r in results if not r.passed)
    head = f"gate: {'FAILED' if failed else 'passed'} ({len(results) - failed} of {len(results)} rule(s) passed)"
    return "\n".join([head, *(f"  {r.message}" for r in results)])
