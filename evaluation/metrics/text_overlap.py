"""Reference-based text metrics, no LLM: exact match, token F1, ROUGE-L, BLEU and embedding similarity.

All compare the answer with `ground_truth` on `ragtest_core.text.tokenize` tokens (lower-cased words; each Chinese or
Japanese character is one token), so they work for CJK text. ROUGE-L uses rouge-score with that tokenizer (its
default one drops non-ASCII text); BLEU is sacrebleu's smoothed sentence BLEU on the same tokens joined by spaces
(tokenize="none"), divided by 100. semantic_similarity is the cosine of the answer's and the reference's
embeddings, clipped to [0, 1] (RAGAS answer_similarity). Edge cases: no ground_truth -> failed
"needs ground_truth"; an empty answer -> 0.0 "empty answer".
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from functools import cache
from types import SimpleNamespace
from typing import Any, ClassVar

from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import BINARY, JudgeFreeMetric, Metric
from evaluation.sample import Sample
from ragtest_core.embeddings import Embedder
from ragtest_core.schema import ANSWER, GROUND_TRUTH, MetricResult
from ragtest_core.text import tokenize

_ARTICLES = frozenset({"a", "an", "the"})


def normalise_answer(text: str) -> list[str]:
    """SQuAD-style normalisation: NFKC, lower case, punctuation and English articles dropped, CJK per character."""
    return [t for t in tokenize(unicodedata.normalize("NFKC", text)) if t not in _ARTICLES]


def exact_match(answer: str, reference: str) -> float:
    return float(normalise_answer(answer) == normalise_answer(reference))


def token_f1(answer: str, reference: str) -> float:
    """SQuAD token F1 (multiset overlap of normalised tokens)."""
    predicted, gold = normalise_answer(answer), normalise_answer(reference)
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


@cache
def _rouge() -> Any:
    """The ROUGE-L scorer, built on first use: rouge-score imports nltk (and sklearn), seconds of start-up."""
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=SimpleNamespace(tokenize=tokenize))  # its tokenizer protocol


@cache
def _bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="none", effective_order=True)


def rouge_l(answer: str, reference: str) -> float:
    """ROUGE-L F-measure (longest common subsequence of tokens)."""
    return float(_rouge().score(reference, answer)["rougeL"].fmeasure)


def bleu(answer: str, reference: str) -> float:
    """Smoothed sentence BLEU in [0, 1] on `tokenize` tokens."""
    hypothesis, gold = " ".join(tokenize(answer)), " ".join(tokenize(reference))
    if not hypothesis or not gold:
        return 0.0
    return min(1.0, max(0.0, _bleu().sentence_score(hypothesis, [gold]).score / 100.0))


def cosine_similarity(embedder: Embedder, answer: str, reference: str) -> float:
    return float(min(1.0, max(0.0, float(embedder.similarity([answer], [reference])[0, 0]))))


class _ReferenceMetric(Metric):
    required_columns: ClassVar[tuple[str, ...]] = (ANSWER, GROUND_TRUTH)

    def precheck(self, sample: Sample) -> MetricResult | None:
        if sample.ground_truth is None:
            return MetricResult.failed("needs ground_truth")
        if sample.answer is None:
            return MetricResult.ok(0.0, "empty answer")
        return None


class _OverlapMetric(_ReferenceMetric, JudgeFreeMetric):
    label: ClassVar[str] = ""
    #: The score of (answer, reference).
    function: ClassVar[staticmethod[[str, str], float]]

    def compute(self, sample: Sample) -> MetricResult:
        value = self.function(sample.answer or "", sample.ground_truth or "")
        return MetricResult.ok(value, f"{self.label} {value:.3f} against ground_truth")


class ExactMatch(_OverlapMetric):
    name: ClassVar[str] = "exact_match"
    definition: ClassVar[str] = (
        "1 when the answer equals the reference answer once case, punctuation and articles are set aside, else 0."
    )
    scale_note: ClassVar[str] = (
        "No judge: the same under both judges. Strict: a correct answer in other words scores 0; meant for short "
        "factual answers."
    )
    label: ClassVar[str] = "exact match"
    scale: ClassVar[str] = BINARY
    function = staticmethod(exact_match)


class TokenF1(_OverlapMetric):
    name: ClassVar[str] = "token_f1"
    definition: ClassVar[str] = (
        "Word overlap between the answer and the reference answer: the F1 of their shared words (SQuAD), 1 = the "
        "same words."
    )
    scale_note: ClassVar[str] = (
        "No judge: the same under both judges. A correct answer in other words, or one adding detail, reads well "
        "below 1."
    )
    label: ClassVar[str] = "token F1"
    function = staticmethod(token_f1)


class RougeL(_OverlapMetric):
    name: ClassVar[str] = "rouge_l"
    definition: ClassVar[str] = (
        "The longest word sequence the answer shares with the reference answer, as an F-measure (ROUGE-L), 1 = the "
        "same text."
    )
    scale_note: ClassVar[str] = (
        "No judge: the same under both judges. Rewards wording, not meaning: a paraphrase reads low."
    )
    label: ClassVar[str] = "ROUGE-L F"
    function = staticmethod(rouge_l)


class Bleu(_OverlapMetric):
    name: ClassVar[str] = "bleu"
    definition: ClassVar[str] = (
        "Smoothed sentence BLEU of the answer against the reference answer, divided by 100: shared word sequences "
        "up to four words long, with a penalty for short answers."
    )
    scale_note: ClassVar[str] = (
        "No judge: the same under both judges. Reads low for any answer not worded like the reference, even a "
        "correct one."
    )
    label: ClassVar[str] = "sentence BLEU"
    function = staticmethod(bleu)


class SemanticSimilarity(_ReferenceMetric):
    name: ClassVar[str] = "semantic_similarity"
    definition: ClassVar[str] = (
        "The cosine similarity of the answer's and the reference answer's embeddings, clipped to [0, 1] (RAGAS "
        "answer similarity)."
    )
    scale_note: ClassVar[str] = (
        "The embedding model alone decides it, under both judges. A raw cosine: answers on the reference's topic "
        "read well above 0 even when they are wrong."
    )

    def local_texts(self, sample: Sample, judge: LocalJudge) -> list[str]:
        return [sample.answer or "", sample.ground_truth or ""]

    def _score(self, sample: Sample, embedder: Embedder) -> MetricResult:
        value = cosine_similarity(embedder, sample.answer or "", sample.ground_truth or "")
        return MetricResult.ok(value, f"embedding cosine {value:.3f} with ground_truth")

    def score_local(self, sample: Sample, judge: LocalJudge) -> MetricResult:
        return self._score(sample, judge.embedder)

    async def score_llm(self, sample: Sample, judge: LLMJudge) -> MetricResult:
        texts = [sample.answer or "", sample.ground_truth or ""]
        return await judge.cpu.run(lambda: self._score(sample, judge.embedder), embed=texts)
