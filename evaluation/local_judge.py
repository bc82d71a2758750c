"""The local judge: lexical alignment and sentence embeddings, no LLM; every score a pure function of the row.

Its parts were chosen by ablation (docs/local-judge.md). "How well do these contexts support this statement?" is
`ragtest_core.support` with the judge's own fitted model (`JUDGE_SUPPORT_FILE`); "how relevant is this text to the
question?" is `evaluation.local_relevance`; context recall and precision compare the reference with the contexts on
a base of their own (`REFERENCE_BASES`). Every component the
ablation measured is a declared setting (`LocalJudgeSettings`, recorded whole in the judge's fingerprint). Nothing
is computed over the batch: the engine embeds the run's texts in one batch first (each metric's `local_texts`), and
scoring only reads those vectors back.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.refusal import committed_part
from ragtest_core import relevance as rel
from ragtest_core.embeddings import Embedder
from ragtest_core.quick_sentences import quick_sentences
from ragtest_core.support import (
    JUDGE_SUPPORT_FILE,
    PARAMS_DIR,
    Evidence,
    Splitter,
    Support,
    SupportParams,
    claim_support,
    load_params,
)
from ragtest_core.textunits import claim_sentences, makes_claim, sentences, unit

#: How many rows' evidence a judge keeps (the metrics of one row share it; a row's score never depends on it).
EVIDENCE_CACHE_ROWS = 64
#: How many claims' support a judge keeps (a pure function of the claim, the evidence and the question).
SUPPORT_CACHE_CLAIMS = 4096
#: The ways of cutting contexts into evidence sentences.
SPLITTERS: dict[str, Splitter] = {"pysbd": sentences, "rules": quick_sentences}
#: A reference sentence is further cut at "; " ("MyHDL: a language; PyPy: an interpreter" is two statements).
_STATEMENT_BREAK = re.compile(r";\s+")


def text_claims(text: str) -> list[str]:
    """The statements a text makes: its sentences that make a claim (`ragtest_core.textunits.makes_claim`),
    citation markers removed, hedging clauses dropped ("I'm not sure, but it was 1991" states "it was 1991")."""
    committed = (committed_part(s) for s in claim_sentences(text))
    return [c for c in committed if c and makes_claim(c)]


def sha256_of(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


RELEVANCE_BASES = ("overlap", "cosine", "combined")


@dataclass(frozen=True)
class RelevanceSettings:
    """How a relevance metric scores (`evaluation.local_relevance`): a base ("overlap", "cosine" or "combined") and
    the components the ablation measured (`bench/judge_ablation.py`), each on or off."""

    base: str = "cosine"
    sentences: bool = True
    centring: bool = True
    readings: bool = False
    parts: bool = False
    noncommittal: bool = False
    restates: bool = False
    #: How contexts are cut into sentences for context relevance: "rules" or "pysbd" (`SPLITTERS`).
    splitter: str = "rules"

    def __post_init__(self) -> None:
        if self.base not in RELEVANCE_BASES:
            raise ValueError(f"base must be one of {', '.join(RELEVANCE_BASES)}, not {self.base!r}")
        if self.splitter not in SPLITTERS:
            raise ValueError(f"splitter must be one of {', '.join(SPLITTERS)}, not {self.splitter!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The relevance recipes the ablation chose (`python -m bench.judge_ablation --write` writes the file).
RELEVANCE_FILE = PARAMS_DIR / "local_judge_relevance.json"


_SHIPPED = json.loads(RELEVANCE_FILE.read_text(encoding="utf-8"))
#: answer_relevancy and context_relevance as shipped (`RELEVANCE_FILE`).
ANSWER_RELEVANCY = RelevanceSettings(**_SHIPPED["answer_relevancy"])
CONTEXT_RELEVANCE = RelevanceSettings(**_SHIPPED["context_relevance"])
#: How context recall and precision judge the reference against the contexts (`evaluation.local_scoring`): "support"
#: (the support model, statement by statement) or a whole-text similarity ("overlap", "cosine", "combined").
REFERENCE_BASES = ("support", *RELEVANCE_BASES)


@dataclass(frozen=True)
class LocalJudgeSettings:
    """What decides the local judge's scores besides the embedding model: the support function's parameters, how
    contexts are cut into sentences, each relevance metric's recipe, the centring mean and the calibration map (each
    from a shipped file, or a user's centring corpus). The defaults are the ablation's choice (docs/local-judge.md)."""

    #: The support model (`ragtest_core.support.JUDGE_SUPPORT_FILE`).
    support: SupportParams = field(default_factory=lambda: load_params(str(JUDGE_SUPPORT_FILE)))
    centring_mean: np.ndarray = field(default_factory=rel.load_centring_mean, compare=False, repr=False)
    #: Where the centring mean comes from: the shipped file's name, or the user's corpus (recorded in manifests).
    centring_source: str = rel.CENTRING_MEAN_FILE.name
    answer_map: rel.Platt = field(default_factory=rel.load_answer_map)
    #: How retrieved contexts are cut into sentences: "pysbd" (`ragtest_core.text`) or "rules"
    #: (`ragtest_core.quick_sentences`); the support model was chosen with the one `JUDGE_SUPPORT_FILE` records.
    evidence_splitter: str = json.loads(JUDGE_SUPPORT_FILE.read_text(encoding="utf-8"))["evidence_splitter"]
    answer_relevancy: RelevanceSettings = ANSWER_RELEVANCY
    context_relevance: RelevanceSettings = CONTEXT_RELEVANCE
    #: How context recall and context precision compare the reference with the contexts (`REFERENCE_BASES`; as
    #: shipped in `RELEVANCE_FILE`).
    context_recall: str = _SHIPPED["context_recall"]["base"]
    context_precision: str = _SHIPPED["context_precision"]["base"]

    def __post_init__(self) -> None:
        if self.evidence_splitter not in SPLITTERS:
            raise ValueError(f"evidence_splitter must be one of {', '.join(SPLITTERS)}, not {self.evidence_splitter!r}")
        for name in ("context_recall", "context_precision"):
            if getattr(self, name) not in REFERENCE_BASES:
                raise ValueError(f"{name} must be one of {', '.join(REFERENCE_BASES)}, not {getattr(self, name)!r}")

    @property
    def calibrated(self) -> bool:
        """Whether the calibration map was fitted for this centring mean (only for the shipped one)."""
        return self.centring_source == rel.CENTRING_MEAN_FILE.name

    def describe(self) -> dict[str, Any]:
        """Every parameter, and the sha256 of each shipped parameter file and of the mean in use."""
        return {
            "support": self.support.as_dict(),
            "evidence_splitter": self.evidence_splitter,
            "answer_relevancy": self.answer_relevancy.as_dict(),
            "context_relevance": self.context_relevance.as_dict(),
            "context_recall": self.context_recall,
            "context_precision": self.context_precision,
            "answer_map": {"slope": self.answer_map.slope, "intercept": self.answer_map.intercept},
            "centring_source": self.centring_source,
            "centring_mean_sha256": hashlib.sha256(np.ascontiguousarray(self.centring_mean).tobytes()).hexdigest(),
            "calibrated_for_this_mean": self.calibrated,
            "files": {
                path.name: sha256_of(path) for path in (JUDGE_SUPPORT_FILE, rel.CENTRING_MEAN_FILE, rel.ANSWER_MAP_FILE)
            },
        }


class LocalJudge:
    """Embedding and lexical evidence over memoised sentence splits, units and vectors."""

    def __init__(self, embedder: Embedder, settings: LocalJudgeSettings | None = None) -> None:
        self.embedder = embedder
        self.settings = settings or LocalJudgeSettings()
        self._evidence: OrderedDict[tuple[tuple[str, ...], str], Evidence] = OrderedDict()
        self._support: OrderedDict[tuple[str, tuple[str, ...], bool, str | None], Support] = OrderedDict()

    #: The statements a text makes (`text_claims`).
    claims = staticmethod(text_claims)

    def statements(self, text: str) -> list[str]:
        """A reference's statements: its claims, further cut at semicolons."""
        parts = [p.strip() for s in self.claims(text) for p in _STATEMENT_BREAK.split(s)]
        return [p for p in parts if unit(p).keys]

    def support_texts(self, claims: Sequence[str], contexts: Sequence[str]) -> list[str]:
        """What the support of `claims` by `contexts` embeds: the claims and the context sentences, or nothing
        when the support model reads no vectors."""
        if not self.settings.support.uses_vectors:
            return []
        return [*claims, *self.sentences_of(contexts).sentences]

    def similarity_texts(self, question: str, texts: Sequence[str], base: str) -> list[str]:
        """What `similarity` under `base` embeds (the support base: `support_texts` of the question's statements)."""
        if base == "support":
            return self.support_texts(self.statements(question), texts)
        return [question, *texts] if base != "overlap" else []

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def cosine(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Raw cosine similarities (len(left) x len(right))."""
        return self.embedder.similarity(list(left), list(right))

    def sentences_of(self, contexts: Sequence[str], splitter: str | None = None) -> Evidence:
        """The contexts cut into evidence sentences by `splitter` (default `LocalJudgeSettings.evidence_splitter`),
        without vectors unless an earlier call embedded them; shared by the metrics of a row."""
        split = splitter or self.settings.evidence_splitter
        key = (tuple(contexts), split)
        found = self._evidence.get(key)
        if found is None:
            found = Evidence.of(contexts, None, SPLITTERS[split])
            self._evidence[key] = found
            while len(self._evidence) > EVIDENCE_CACHE_ROWS:
                self._evidence.popitem(last=False)
        return found

    def evidence(self, contexts: Sequence[str]) -> Evidence:
        """The contexts as evidence for support: their sentences, with vectors when the support model reads them."""
        found = self.sentences_of(contexts)
        if self.settings.support.uses_vectors and found.vectors is None and found.sentences:
            found = replace(found, vectors=self.vectors(found.sentences))
            self._evidence[(tuple(contexts), self.settings.evidence_splitter)] = found
        return found

    def support(self, claims: Sequence[str], evidence: Evidence, question: str | None = None) -> list[Support]:
        """The graded support of each claim by the evidence (`ragtest_core.support.claim_support`), memoised: the
        metrics of a row ask for the same support (context recall and precision, precision's single context)."""
        if not claims:
            return []
        vectors = self.vectors(claims) if evidence.vectors is not None else None
        found = []
        for i, claim in enumerate(claims):
            key = (claim, evidence.sentences, evidence.vectors is not None, question)
            value = self._support.get(key)
            if value is None:
                vector = None if vectors is None else vectors[i]
                value = claim_support(claim, evidence, vector, question, self.settings.support)
                self._support[key] = value
                while len(self._support) > SUPPORT_CACHE_CLAIMS:
                    self._support.popitem(last=False)
            found.append(value)
        return found

    def similarity(self, question: str, texts: Sequence[str], base: str, centred: bool = False) -> np.ndarray:
        """Per text, its similarity to `question` (or a reference) under `base`: the share of the question's content
        tokens it holds ("overlap"), its cosine with the question clipped at 0 ("cosine"; `centred`: the calibrated
        relevance instead), or the mean of the two ("combined")."""
        parts = [np.asarray([rel.token_share(question, t) for t in texts], dtype=float)] if base != "cosine" else []
        if base != "overlap":
            cosine = self.relevance(question, texts) if centred else self.cosine([question], texts)[0]
            parts.append(np.clip(cosine, 0.0, 1.0).astype(float))
        return parts[0] if len(parts) == 1 else 0.5 * (parts[0] + parts[1])

    def relevance(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """Calibrated relevance of each text to the question, in [0, 1]: its centred cosine with the question (the
        shipped or the user's centring mean) through the calibration map."""
        if not texts:
            return np.zeros(0)
        vectors = self.vectors([question, *texts])
        centred = rel.centred_cosine(vectors[:1], vectors[1:], self.settings.centring_mean)[0]
        return np.asarray(self.settings.answer_map(centred), dtype=float)
