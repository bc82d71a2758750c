"""The local judge's relevance metrics: a base scorer and the components the ablation kept
(`bench/judge_ablation.py`; `RelevanceSettings` declares each, `LocalJudgeSettings` holds one per metric).

Bases: "overlap", the share of the question's content tokens a text holds (`ragtest_core.relevance.token_share`);
"cosine", the MiniLM cosine of the question and the text (clipped at 0); "combined", their mean. Components:

- sentences: score each answer sentence (each context sentence) instead of the whole text;
- centring: the cosine after subtracting the fixed shipped centring mean, mapped by the fitted Platt curve onto
  "the probability that this text answers the question" (`ragtest_core.relevance`);
- readings: also read an answer sentence without some of its clauses (`ragtest_core.relevance.readings`);
- parts: answer relevancy x the share of the question's parts the answer addresses
  (`ragtest_core.relevance.parts_addressed`);
- noncommittal: an answer containing a refusal or hedge phrase scores 0.0;
- restates: an answer that only repeats the question's words scores 0.0.

answer_relevancy = the best answer unit's base score (x the parts share); context_relevance = the mean base score of
the context units (sentences, cut by `RelevanceSettings.splitter`). answer_relevancy_raw: RAGAS' raw
cosine (the best one between the question and an answer sentence), uncentred and uncalibrated, whatever the
settings: comparable with ragas' numbers, not with the calibrated scale.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluation.local_judge import LocalJudge, RelevanceSettings
from evaluation.refusal import is_noncommittal
from evaluation.sample import Sample
from evaluation.scores import answer_relevancy_score, graded_mean_score
from ragtest_core.relevance import answers_yes_or_no, parts_addressed, readings
from ragtest_core.schema import MetricResult
from ragtest_core.textunits import unit


def _claims_or_decision(sample: Sample, judge: LocalJudge, rules: RelevanceSettings) -> list[str] | MetricResult:
    """The answer's claim sentences, or the decided score of an answer that evades, says nothing, or only restates
    the question (as far as `rules` ask)."""
    question, answer = sample.question or "", sample.answer or ""
    if rules.noncommittal and is_noncommittal(answer):
        return answer_relevancy_score([], noncommittal=True)
    claims = judge.claims(answer)
    if not claims and (rules.sentences or rules.restates):
        return MetricResult.ok(0.0, "the answer makes no statement")
    if rules.restates:
        restates = not frozenset(k for c in claims for k in unit(c).keys) - unit(question).keys
        if restates and not any(answers_yes_or_no(question, c) for c in claims):
            return MetricResult.ok(0.0, "the answer only repeats the question")
    return claims


def answer_units(question: str, answer: str, claims: Sequence[str], rules: RelevanceSettings) -> list[str]:
    """What the question is compared with: the answer whole, its claim sentences, or their readings."""
    if not rules.sentences:
        return [answer]
    if rules.readings:
        return list(dict.fromkeys(t for c in claims for t in readings(question, c)))
    return list(claims)


def answer_relevancy(sample: Sample, judge: LocalJudge) -> MetricResult:
    rules = judge.settings.answer_relevancy
    found = _claims_or_decision(sample, judge, rules)
    if isinstance(found, MetricResult):
        return found
    question, claims = sample.question or "", found
    units = answer_units(question, sample.answer or "", claims, rules)
    scores = judge.similarity(question, units, rules.base, rules.centring)
    best = int(np.argmax(scores))
    value = float(scores[best])
    details: dict[str, object] = {"relevance": value, "best_unit": units[best], "base": rules.base}
    reason = f"{rules.base} relevance {value:.3f} of the best of {len(units)} answer unit(s)"
    if rules.parts:
        share, parts = parts_addressed(question, claims)
        addressed = sum(ok for _, ok in parts)
        reason += f" x question parts addressed {addressed}/{len(parts)}"
        details["question_parts"] = [{"part": p, "addressed": ok} for p, ok in parts]
        value *= share
    if rules.centring and rules.base != "overlap" and not judge.settings.calibrated:
        reason += " (centring mean from a user corpus: not calibrated)"
    return MetricResult.ok(float(np.clip(value, 0.0, 1.0)), reason, **details)


def answer_relevancy_raw(sample: Sample, judge: LocalJudge) -> MetricResult:
    rules = RelevanceSettings(base="cosine", sentences=True, centring=False, noncommittal=True, restates=True)
    found = _claims_or_decision(sample, judge, rules)
    if isinstance(found, MetricResult):
        return found
    raw = judge.cosine([sample.question or ""], found)[0]
    value = float(np.clip(raw.max(), 0.0, 1.0))
    return MetricResult.ok(value, f"raw cosine {value:.3f} (best of {len(found)} answer sentence(s))", raw=value)


def context_units(sample: Sample, judge: LocalJudge) -> list[str]:
    """The context sentences (or the contexts joined, without the sentences component)."""
    rules = judge.settings.context_relevance
    if not rules.sentences:
        return [" ".join(sample.contexts)]
    return list(judge.sentences_of(sample.contexts, rules.splitter).sentences)


def context_relevance(sample: Sample, judge: LocalJudge) -> MetricResult:
    rules = judge.settings.context_relevance
    units = context_units(sample, judge)
    values = judge.similarity(sample.question or "", units, rules.base, rules.centring)
    result = graded_mean_score(
        values.tolist(),
        "no context sentences",
        "mean sentence relevance {mean:.3f} ({high} of {n} sentences relevant at >= 0.5)",
    )
    ranked = sorted(zip(values.tolist(), units, strict=True), reverse=True)
    relevant = [s for v, s in ranked if v >= 0.5]
    return result.model_copy(
        update={"details": {"relevant_sentences": relevant, "per_sentence": values.round(4).tolist()}}
    )
