"""The local judge: sentence embeddings plus lexical alignment, no LLM; every score a pure function of the row.

"How well do these contexts support this statement?" is `ragtest_core.support` (the graded function the test-set
generator's groundedness check uses too); "how relevant is this text to the question?" is
`ragtest_core.relevance` (centred cosine with a fixed, shipped centring mean, mapped onto a calibrated scale).
Nothing is computed over the batch: the engine embeds the run's texts in one batch first (each metric's
`local_texts`: the question, the answer's claim sentences, the context sentences and the reference's statements,
each once), and scoring only reads those vectors back.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.refusal import committed_part
from ragtest_core import relevance as rel
from ragtest_core.embeddings import Embedder
from ragtest_core.support import (
    SUPPORT_PARAMS_FILE,
    Evidence,
    Support,
    SupportParams,
    claim_support,
    load_params,
)
from ragtest_core.textunits import claim_sentences, content_keys, makes_claim, unit

#: How many rows' evidence a judge keeps (the metrics of one row share it; a row's score never depends on it).
EVIDENCE_CACHE_ROWS = 64
#: A reference sentence is further cut at "; " ("MyHDL: a language; PyPy: an interpreter" is two statements).
_STATEMENT_BREAK = re.compile(r";\s+")


def text_claims(text: str) -> list[str]:
    """The statements a text makes: its sentences that make a claim (`ragtest_core.textunits.makes_claim`),
    citation markers removed, hedging clauses dropped ("I'm not sure, but it was 1991" states "it was 1991")."""
    committed = (committed_part(s) for s in claim_sentences(text))
    return [c for c in committed if c and makes_claim(c)]


def sha256_of(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@dataclass(frozen=True)
class LocalJudgeSettings:
    """What decides the local judge's scores besides the embedding model: the support function's parameters, the
    centring mean and the calibration map (each from a shipped file, or a user's centring corpus)."""

    support: SupportParams = field(default_factory=load_params)
    centring_mean: np.ndarray = field(default_factory=rel.load_centring_mean, compare=False, repr=False)
    #: Where the centring mean comes from: the shipped file's name, or the user's corpus (recorded in manifests).
    centring_source: str = rel.CENTRING_MEAN_FILE.name
    answer_map: rel.Platt = field(default_factory=rel.load_answer_map)

    @property
    def calibrated(self) -> bool:
        """Whether the calibration map was fitted for this centring mean (only for the shipped one)."""
        return self.centring_source == rel.CENTRING_MEAN_FILE.name

    def describe(self) -> dict[str, Any]:
        """Every parameter, and the sha256 of each shipped parameter file and of the mean in use."""
        return {
            "support": self.support.as_dict(),
            "answer_map": {"slope": self.answer_map.slope, "intercept": self.answer_map.intercept},
            "centring_source": self.centring_source,
            "centring_mean_sha256": hashlib.sha256(np.ascontiguousarray(self.centring_mean).tobytes()).hexdigest(),
            "calibrated_for_this_mean": self.calibrated,
            "files": {
                path.name: sha256_of(path)
                for path in (SUPPORT_PARAMS_FILE, rel.CENTRING_MEAN_FILE, rel.ANSWER_MAP_FILE)
            },
        }


class LocalJudge:
    """Embedding and lexical evidence over memoised sentence splits, units and vectors."""

    def __init__(self, embedder: Embedder, settings: LocalJudgeSettings | None = None) -> None:
        self.embedder = embedder
        self.settings = settings or LocalJudgeSettings()
        self._evidence: OrderedDict[tuple[str, ...], Evidence] = OrderedDict()

    # -- texts ---------------------------------------------------------------------------------------------------

    def tokens(self, text: str) -> frozenset[str]:
        """Content keys (stems, normalised numbers) of a text."""
        return content_keys(text)

    def claims(self, text: str) -> list[str]:
        """The statements a text makes (`text_claims`)."""
        return text_claims(text)

    def statements(self, text: str) -> list[str]:
        """A reference's statements: its claims, further cut at semicolons."""
        parts = [p.strip() for s in self.claims(text) for p in _STATEMENT_BREAK.split(s)]
        return [p for p in parts if unit(p).keys]

    def evidence_texts(self, contexts: Sequence[str]) -> list[str]:
        """The sentences of the contexts (what the evidence embeds)."""
        return list(Evidence.of(contexts).sentences)

    # -- vectors -------------------------------------------------------------------------------------------------

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def cosine(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Raw cosine similarities (len(left) x len(right))."""
        return self.embedder.similarity(list(left), list(right))

    def evidence(self, contexts: Sequence[str]) -> Evidence:
        """The contexts as evidence sentences with their vectors (shared by the metrics of a row)."""
        key = tuple(contexts)
        found = self._evidence.get(key)
        if found is None:
            found = Evidence.of(contexts, self.vectors)
            self._evidence[key] = found
            while len(self._evidence) > EVIDENCE_CACHE_ROWS:
                self._evidence.popitem(last=False)
        return found

    # -- judgements ----------------------------------------------------------------------------------------------

    def support(self, claims: Sequence[str], evidence: Evidence, question: str | None = None) -> list[Support]:
        """The graded support of each claim by the evidence (`ragtest_core.support.claim_support`)."""
        if not claims:
            return []
        vectors = self.vectors(claims) if evidence.vectors is not None else None
        return [
            claim_support(claim, evidence, None if vectors is None else vectors[i], question, self.settings.support)
            for i, claim in enumerate(claims)
        ]

    def centred(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Centred cosines of each text with the question (the shipped or the user's centring mean)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        vectors = self.vectors([question, *texts])
        return rel.centred_cosine(vectors[:1], vectors[1:], self.settings.centring_mean)[0]

    def relevance(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Calibrated relevance of each text to the question, in [0, 1]."""
        return np.asarray(self.settings.answer_map(self.centred(question, texts)), dtype=float)
