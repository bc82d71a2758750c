"""An offline support check: is a claim (a reference answer) supported by some texts (its gold contexts)?

Two signals, both language-aware through `ragtest.text` (CJK characters are tokens):
- lexical alignment: the share of the claim's content tokens found in the texts (a light prefix match lets
  "released" meet "release"), and every number of the claim must appear in the texts;
- embeddings: the best cosine similarity between the claim (with its question, when given) and a sentence of
  the texts, from `ragtest.embeddings`.

A claim is supported when its numbers are found and its lexical share is high, or fairly high with a close
sentence. Used by the test-set generator's groundedness filter when no LLM critic is configured; for an
unanswerable question the generator checks the opposite (the neighbourhood must NOT support the hypothesis).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragtest.embeddings import Embedder
from ragtest.text import content_tokens, split_sentences

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
LEXICAL_SUPPORTED = 0.8
LEXICAL_WITH_SEMANTIC = 0.5
SEMANTIC_SUPPORTED = 0.55


@dataclass(frozen=True)
class Support:
    """How well texts support a claim: lexical share, best sentence similarity, numbers found, verdict."""

    lexical: float
    semantic: float | None
    numbers_found: bool
    supported: bool
    best_sentence: str = ""


def _stem(token: str) -> str:
    return token[:5] if token.isalpha() and len(token) > 5 else token


def lexical_support(claim: str, texts: Sequence[str]) -> float:
    """Share of the claim's content tokens (lightly stemmed) that occur in `texts`; 1.0 for a claim without any."""
    wanted = content_tokens(claim)
    if not wanted:
        return 1.0
    have = {_stem(t) for text in texts for t in content_tokens(text)}
    return sum(1 for t in wanted if _stem(t) in have) / len(wanted)


def numbers_found(claim: str, texts: Sequence[str]) -> bool:
    """Every number of the claim occurs in the texts (ignoring thousands separators)."""
    joined = " ".join(texts).replace(",", "")
    return all(number.replace(",", "") in joined for number in _NUMBER.findall(claim))


def shared_content(left: str, right: str) -> int:
    """How many distinct content tokens two texts share (used to check that a cited block contributes)."""
    return len({_stem(t) for t in content_tokens(left)} & {_stem(t) for t in content_tokens(right)})


class SupportChecker:
    """`check(claim, texts)` with optional embeddings (without an embedder only the lexical signal counts)."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def check(self, claim: str, texts: Sequence[str], question: str | None = None) -> Support:
        """The verdict; the embeddings are consulted only when the lexical signal alone is not conclusive."""
        lexical = lexical_support(claim, texts)
        numbers = numbers_found(claim, texts)
        if not numbers or lexical >= LEXICAL_SUPPORTED or lexical < LEXICAL_WITH_SEMANTIC or self.embedder is None:
            supported = numbers and lexical >= LEXICAL_SUPPORTED
            return Support(lexical=lexical, semantic=None, numbers_found=numbers, supported=supported)
        semantic, best = self._semantic(f"{question} {claim}" if question else claim, texts)
        supported = semantic is not None and semantic >= SEMANTIC_SUPPORTED
        return Support(lexical, semantic, numbers, supported, best)

    def _semantic(self, claim: str, texts: Sequence[str]) -> tuple[float | None, str]:
        if self.embedder is None:
            return None, ""
        sentences = [s for text in texts for s in split_sentences(text)]
        if not sentences:
            return 0.0, ""
        scores = self.embedder.similarity([claim], sentences)[0]
        best = int(scores.argmax())
        return round(float(scores[best]), 4), sentences[best]
