"""The one offline support function: how well do some texts support a claim? A graded value in [0, 1] with the
evidence it rests on. The test-set generator's groundedness check (`is_supported`, the model with the semantic
feature: `SUPPORT_PARAMS_FILE`) and the local judge's faithfulness, citations, answer correctness and "support"
bases (the lexical model: `JUDGE_SUPPORT_FILE`) use it. Provenance of both fits: docs/local-judge.md.

For one claim sentence against evidence sentences (citation markers removed, units from `ragtest_core.textunits`):

1. lexical alignment: the best window W* of 1..`lexical_window` consecutive sentences of one text, by the weighted
   share of the claim's content words it holds (key tokens weigh `key_weight`, other words 1; the question's words
   break ties, and carry full weight for a claim of fewer than `short_claim_words` words such as "Nevada.", so that
   a short answer is aligned to its slot). `lexical` = that share; `lexical_anywhere` = the share found anywhere in
   the evidence; `missing_weight` = the weight of claim words found nowhere.
2. semantic similarity: the best cosine between the claim's vector and one evidence sentence's vector (each
   sentence embedded once; no windows). A model whose `b_sem` is 0 reads no vectors.
3. base value = P(supported | evidence), a logistic model:
   z = b0 + b_window * lexical + b_any * lexical_anywhere + b_sem * semantic - b_missing * log(1 + missing_weight),
   divided by the value of a verbatim quote, so that a quoted claim reads 1.0 (monotone: rankings unchanged).
   Without vectors, semantic counts 0: a lexical-only check is stricter, never looser. The missing weight enters
   through its logarithm, so that the words a long answer paraphrases do not drive its joint support to zero.
4. contradictions (`ragtest_core.conflicts`): each slot conflict keeps `slot_keep` of the value, each sentence
   conflict `sentence_keep[kind]`, each present-slot conflict `present_keep` (priors, checked but not fitted);
   `conflicts=False` turns them off (and with `b_window` 0, no window is aligned at all).

A claim is *supported* when its value reaches `JudgeParams.supported_at` (0.5: even odds before the verbatim rescale).

Several claims taken together (an answer's statements, `joint_support`): the same model on their pooled features
(the content-weighted shares and semantic similarity, the total weight of words found nowhere), times the claims'
conflict factors averaged by content weight: one invented sentence among faithful ones costs what its words cost,
not a fixed share. For one claim it is that claim's value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ragtest_core import judge_params
from ragtest_core.conflicts import Conflict, find_conflicts
from ragtest_core.embeddings import Embedder
from ragtest_core.textunits import (
    MONTH,
    NAME,
    NUMBER,
    ORDINAL,
    WEEKDAY,
    YEAR,
    Unit,
    claim_sentences,
    content_keys,
    sentences,
    strip_citations,
    unit,
)

#: The shipped parameter files (package data), with their provenance inside.
PARAMS_DIR = Path(__file__).resolve().parent / "params"
SUPPORT_PARAMS_FILE = PARAMS_DIR / "support_logit.json"
#: The local judge's support model (chosen and fitted by bench/judge_ablation.py): lexical features only.
JUDGE_SUPPORT_FILE = PARAMS_DIR / "local_judge_support.json"
_FITTED = ("b0", "b_window", "b_any", "b_sem", "b_missing")

VectorsFor = Callable[[list[str]], np.ndarray]
#: Cuts a text into sentences.
Splitter = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class SupportParams:
    """Every setting of the support function (see the module docstring for what each does)."""

    lexical_window: int = 2
    key_weight: float = 2.0
    b0: float = 0.0
    b_window: float = 0.0
    b_any: float = 0.0
    b_sem: float = 0.0
    b_missing: float = 0.0
    anchor_reach: int = 3
    slot_reach: int = 3
    slot_keep: float = 0.1
    sentence_keep: dict[str, float] = field(
        default_factory=lambda: {YEAR: 0.4, NUMBER: 0.4, ORDINAL: 0.5, MONTH: 0.4, WEEKDAY: 0.4, NAME: 0.7}
    )
    present_keep: float = 0.5
    verbatim_reads_one: bool = True
    short_claim_words: int = 3
    question_weight: float = 0.25
    #: Whether contradictions cost (step 4); off, no window is aligned unless the window share is a feature.
    conflicts: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @property
    def uses_vectors(self) -> bool:
        """Whether the semantic feature enters the model (else the judge embeds nothing for support)."""
        return self.b_sem != 0.0


@lru_cache(maxsize=4)
def load_params(path: str | None = None) -> SupportParams:
    """SupportParams with the logistic coefficients of a fitted parameter file (default: the shipped one)."""
    data = json.loads(Path(path or SUPPORT_PARAMS_FILE).read_text(encoding="utf-8"))
    fitted: dict[str, Any] = {name: float(data.get(name, 0.0)) for name in _FITTED}
    return replace(SupportParams(), **fitted, conflicts=bool(data.get("conflicts", True)))


@dataclass(frozen=True)
class Support:
    """The graded support of one claim and what it rests on."""

    value: float
    lexical: float
    semantic: float | None
    conflicts: tuple[Conflict, ...] = ()
    lexical_anywhere: float = 0.0
    missing_weight: float = 0.0
    base: float = 0.0
    #: The claim's total content weight (0 for a claim without content words: it takes no part in `joint_support`).
    weight: float = 0.0
    #: The product of its conflict factors (1.0: no conflict).
    penalty: float = 1.0

    @property
    def supported(self) -> bool:
        return self.value >= judge_params.PARAMS.supported_at

    def details(self) -> dict[str, Any]:
        """A JSON-friendly summary for a metric's details."""
        return {
            "support": round(self.value, 4),
            "lexical": round(self.lexical, 3),
            "semantic": None if self.semantic is None else round(self.semantic, 3),
            "conflicts": [f"{c.claim_token} vs {c.competitor}" for c in self.conflicts],
        }


@dataclass(frozen=True)
class Evidence:
    """Evidence sentences (each text split into sentences, in order), the text each came from, and their vectors
    (rows, L2-normalised) or None for a lexical-only check. Units and keys are worked out once per evidence."""

    sentences: tuple[str, ...]
    context_of: tuple[int, ...]
    vectors: np.ndarray | None = None

    @classmethod
    def of(cls, texts: Sequence[str], vectors_for: VectorsFor | None = None, split: Splitter | None = None) -> Evidence:
        """The sentences of `texts` (split by `split`, pysbd's `sentences` by default; citation markers removed),
        embedded by `vectors_for`."""
        pairs = [(s, i) for i, text in enumerate(texts) for s in (split or sentences)(strip_citations(text))]
        found = tuple(s for s, _ in pairs)
        vectors = vectors_for(list(found)) if vectors_for is not None and found else None
        return cls(found, tuple(i for _, i in pairs), vectors)

    @cached_property
    def units(self) -> list[Unit]:
        return [unit(s) for s in self.sentences]

    @cached_property
    def keys(self) -> frozenset[str]:
        """The content keys of every sentence."""
        return frozenset(k for u in self.units for k in u.keys)

    @cached_property
    def _window_cache(self) -> dict[int, list[tuple[tuple[int, ...], frozenset[str]]]]:
        return {}

    def windows(self, size: int) -> list[tuple[tuple[int, ...], frozenset[str]]]:
        """Every window of 1..`size` consecutive sentences of one text, with its content keys (worked out once)."""
        if size not in self._window_cache:
            units = self.units
            self._window_cache[size] = [
                (window, frozenset(k for i in window for k in units[i].keys))
                for window in _windows(self.context_of, size)
            ]
        return self._window_cache[size]

    def subset(self, texts: Sequence[int]) -> Evidence:
        """The evidence of some texts only (by index), sharing the vectors (nothing is embedded again)."""
        wanted = set(texts)
        keep = [i for i, c in enumerate(self.context_of) if c in wanted]
        vectors = None if self.vectors is None else self.vectors[keep]
        return Evidence(tuple(self.sentences[i] for i in keep), tuple(self.context_of[i] for i in keep), vectors)


def _weights(claim: Unit, key_weight: float) -> dict[str, float]:
    weights: dict[str, float] = {}
    for w in claim.words:
        if w.content:
            weights[w.key] = max(weights.get(w.key, 0.0), key_weight if w.kind else 1.0)
    return weights


def _windows(context_of: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Windows of 1..`size` consecutive sentences of one text, by start (texts' sentences are contiguous)."""
    n = len(context_of)
    return [
        tuple(range(a, a + w))
        for a in range(n)
        for w in range(1, size + 1)
        if a + w <= n and context_of[a + w - 1] == context_of[a]
    ]


def _best_window(
    evidence: Evidence, weights: dict[str, float], question: frozenset[str], p: SupportParams
) -> tuple[tuple[int, ...], float]:
    """The window with the largest weighted share of the claim's words (question words break ties), and that share."""
    total = sum(weights.values())
    align = question - set(weights)
    question_weight = p.question_weight if len(weights) >= p.short_claim_words else 1.0
    best: tuple[float, float, int] = (-1.0, -1.0, 0)
    chosen: tuple[int, ...] = ()
    for window, have in evidence.windows(p.lexical_window):
        share = sum(w for k, w in weights.items() if k in have) / total
        asked = len(align & have) / len(align) if align else 0.0
        score = (share + question_weight * asked, share, -len(window))
        if score > best:
            best, chosen = score, window
    return chosen, best[1]


def _logistic(z: float) -> float:
    return float(1.0 / (1.0 + np.exp(-z)))


def _base_value(lexical: float, anywhere: float, semantic: float, missing: float, p: SupportParams) -> float:
    """The logistic model, divided by a verbatim quote's value (so that a quote reads 1.0)."""
    z = p.b0 + p.b_window * lexical + p.b_any * anywhere + p.b_sem * semantic - p.b_missing * float(np.log1p(missing))
    value = _logistic(z)
    if p.verbatim_reads_one:
        value = min(1.0, value / _logistic(p.b0 + p.b_window + p.b_any + p.b_sem))
    return value


def _penalty(conflicts: Sequence[Conflict], p: SupportParams) -> float:
    keep = p.sentence_keep
    return math.prod(
        p.present_keep if c.present else p.slot_keep if c.anchored else keep.get(c.kind, 1.0) for c in conflicts
    )


def claim_support(
    claim: str,
    evidence: Evidence,
    claim_vector: np.ndarray | None = None,
    question: str | None = None,
    params: SupportParams | None = None,
) -> Support:
    """The graded support of one claim sentence by the evidence (see the module docstring)."""
    p = params or load_params()
    c = unit(strip_citations(claim))
    weights = _weights(c, p.key_weight)
    if not weights:
        return Support(1.0, 1.0, None)
    total = sum(weights.values())
    if not evidence.sentences:  # nothing can support it: a zero factor, so that no joint support is left either
        return Support(0.0, 0.0, None, missing_weight=total, weight=total, penalty=0.0)
    question_keys = unit(question).keys if question else frozenset()
    needs_window = p.b_window != 0.0 or p.conflicts  # for the window-share feature or the conflicts found in it
    window, lexical = _best_window(evidence, weights, question_keys, p) if needs_window else ((), 0.0)
    semantic = None
    if claim_vector is not None and evidence.vectors is not None and len(evidence.vectors):
        semantic = float(np.max(evidence.vectors @ claim_vector))
    everywhere = evidence.keys
    anywhere = sum(w for k, w in weights.items() if k in everywhere) / total
    missing_weight = sum(w for k, w in weights.items() if k not in everywhere)
    base = _base_value(lexical, anywhere, semantic or 0.0, missing_weight, p)
    window_units = [evidence.units[i] for i in window]
    reach = (p.anchor_reach, p.slot_reach, p.present_keep < 1.0)
    conflicts = find_conflicts(c, window_units, everywhere, question_keys, *reach) if p.conflicts else []
    penalty = _penalty(conflicts, p)
    return Support(base * penalty, lexical, semantic, tuple(conflicts), anywhere, missing_weight, base, total, penalty)


def pooled_features(found: Sequence[Support]) -> tuple[float, float, float, float] | None:
    """(lexical, lexical_anywhere, semantic, missing_weight) of several claims taken together: the shares and the
    semantic similarity weighted by each claim's content weight, the missing weights summed. None when no claim has
    content words (a claim without content words weighs 0: it adds nothing)."""
    total = sum(s.weight for s in found)
    if total <= 0:
        return None
    return (
        sum(s.lexical * s.weight for s in found) / total,
        sum(s.lexical_anywhere * s.weight for s in found) / total,
        sum((s.semantic or 0.0) * s.weight for s in found) / total,
        sum(s.missing_weight for s in found),
    )


def joint_support(found: Sequence[Support], params: SupportParams | None = None) -> float:
    """The support of several claims taken together (see the module docstring); 1.0 when none has content words."""
    pooled = pooled_features(found)
    if pooled is None:
        return 1.0
    penalty = sum(s.penalty * s.weight for s in found) / sum(s.weight for s in found)
    return _base_value(*pooled, params or load_params()) * penalty


def support(
    claims: Sequence[str], texts: Sequence[str], embedder: Embedder | None = None, question: str | None = None
) -> list[Support]:
    """The graded support of each claim sentence by `texts` (lexical evidence only when `embedder` is None)."""
    vectors_for = embedder.embed if embedder is not None else None
    evidence = Evidence.of(texts, vectors_for)
    claim_vectors = embedder.embed([strip_citations(c) for c in claims]) if embedder is not None and claims else None
    return [
        claim_support(c, evidence, None if claim_vectors is None else claim_vectors[i], question)
        for i, c in enumerate(claims)
    ]


def is_supported(claim: str, texts: Sequence[str], embedder: Embedder | None = None) -> bool:
    """Every claim sentence of `claim` (or the whole text, when it has no sentence with content) is supported by
    `texts`: graded support >= `JudgeParams.supported_at`. Lexical evidence only when `embedder` is None (stricter)."""
    units = claim_sentences(claim) or [claim]
    return all(s.supported for s in support(units, texts, embedder))


def shared_stems(left: str, right: str) -> int:
    """How many distinct content keys two texts share (e.g. whether a cited block contributes to an answer)."""
    return len(content_keys(left) & content_keys(right))
