"""The local judge's relevance metrics, on `ragtest_core.relevance`'s calibrated scale (see `evaluation.local_judge`).

- answer_relevancy = calibrated(best centred cosine between the question and a reading of an answer sentence: the
  sentence itself, or a selection of its clauses that still answers, `ragtest_core.relevance.readings`) x the share
  of the question's parts the answer addresses. The calibrated value reads as "the probability that this answer
  sentence answers the question" (a direct answer ~0.9-1.0, an off-topic one ~0.0); the parts factor makes an
  answer to half of a compound question read half. A noncommittal answer, or one that only repeats the question's
  words, scores 0.0.
- answer_relevancy_raw: RAGAS' raw cosine (the best one between the question and an answer sentence), uncentred and
  uncalibrated: comparable with ragas' numbers, not with the calibrated scale.
- context_relevance = the mean calibrated relevance of the context sentences (a graded share of the sentences that
  would answer the question).
"""

from __future__ import annotations

import numpy as np

from evaluation.local_judge import LocalJudge
from evaluation.refusal import is_noncommittal
from evaluation.sample import Sample
from evaluation.scores import answer_relevancy_score, graded_context_relevance_score
from ragtest_core.relevance import answers_yes_or_no, parts_addressed, readings
from ragtest_core.schema import MetricResult
from ragtest_core.textunits import unit


def _claims_or_decision(sample: Sample, judge: LocalJudge) -> tuple[str, list[str]] | MetricResult:
    """(question, the answer's claim sentences), or 0.0 for an answer that evades, says nothing, or only restates
    the question."""
    question, answer = sample.question or "", sample.answer or ""
    if is_noncommittal(answer):
        return answer_relevancy_score([], noncommittal=True)
    claims = judge.claims(answer)
    if not claims:
        return MetricResult.ok(0.0, "the answer makes no statement")
    restates = not frozenset(k for c in claims for k in unit(c).keys) - unit(question).keys
    if restates and not any(answers_yes_or_no(question, c) for c in claims):
        return MetricResult.ok(0.0, "the answer only repeats the question")
    return question, claims


def answer_relevancy(sample: Sample, judge: LocalJudge) -> MetricResult:
    found = _claims_or_decision(sample, judge)
    if isinstance(found, MetricResult):
        return found
    question, claims = found
    read = [(claim, text) for claim in claims for text in readings(question, claim)]
    centred = judge.centred(question, [text for _, text in read])
    best = int(np.argmax(centred))
    similarity = float(judge.settings.answer_map(float(centred[best])))
    share, parts = parts_addressed(question, claims)
    value = float(np.clip(similarity * share, 0.0, 1.0))
    raw = float(judge.cosine([question], claims)[0].max())
    addressed = sum(ok for _, ok in parts)
    reason = (
        f"calibrated relevance {similarity:.3f} (best centred cosine {centred[best]:.3f}; raw {raw:.3f})"
        f" x question parts addressed {addressed}/{len(parts)}"
    )
    calibration = "" if judge.settings.calibrated else " (centring mean from a user corpus: not calibrated)"
    return MetricResult.ok(
        value,
        reason + calibration,
        similarity=similarity,
        centred=float(centred[best]),
        raw=raw,
        best_sentence=read[best][0],
        best_reading=read[best][1],
        question_parts=[{"part": p, "addressed": ok} for p, ok in parts],
    )


def answer_relevancy_raw(sample: Sample, judge: LocalJudge) -> MetricResult:
    found = _claims_or_decision(sample, judge)
    if isinstance(found, MetricResult):
        return found
    question, claims = found
    raw = judge.cosine([question], claims)[0]
    value = float(np.clip(raw.max(), 0.0, 1.0))
    return MetricResult.ok(value, f"raw cosine {value:.3f} (best of {len(claims)} answer sentence(s))", raw=value)


def context_relevance(sample: Sample, judge: LocalJudge) -> MetricResult:
    sentences = judge.evidence(sample.contexts).sentences
    values = judge.relevance(sample.question or "", list(sentences))
    result = graded_context_relevance_score(values.tolist())
    ranked = sorted(zip(values.tolist(), sentences, strict=True), reverse=True)
    relevant = [s for v, s in ranked if v >= 0.5]
    return result.model_copy(
        update={"details": {"relevant_sentences": relevant, "per_sentence": values.round(4).tolist()}}
    )
