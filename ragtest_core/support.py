"""The one offline support rule: is a claim supported by some texts? Used by the test-set generator's groundedness
check and by the local judge (faithfulness, context recall and precision, citations, answer correctness), so the
judge never fails a reference that the generator accepted as grounded.

Two kinds of evidence, both language-aware through `ragtest_core.text` (CJK characters are tokens):

- lexical: content-token recall, i.e. the share of a claim's content words (stopwords removed, words cut to their
  first `STEM_PREFIX_LENGTH` characters, so "launched" matches "launch") found in one window of up to
  `LEXICAL_WINDOW_SENTENCES` consecutive sentences of one text;
- semantic: the best cosine similarity of all-MiniLM-L6-v2 sentence embeddings between the claim and one sentence
  of the texts.

A claim is supported when its numbers all occur in the texts and its lexical recall reaches `LEXICAL_SUPPORT_RECALL`,
or its embedding is a near paraphrase (`SEMANTIC_SUPPORT_COSINE`), or both kinds are moderately strong together.
The values are priors chosen from what the measures mean (see each constant), not fitted to an evaluation set.
Without an embedder only the lexical evidence counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ragtest_core.embeddings import Embedder
from ragtest_core.text import content_tokens, sentences_of

#: Words are compared on their first characters only (a truncation stemmer).
STEM_PREFIX_LENGTH = 6
#: Lexical evidence: windows of up to this many consecutive sentences of one text (a claim may fuse two).
LEXICAL_WINDOW_SENTENCES = 2
#: Semantic evidence: windows of this many sentences (1: single sentences, which keeps embedding cheap).
SEMANTIC_WINDOW_SENTENCES = 1
#: A claim is supported when this share of its content tokens occurs in one window ...
LEXICAL_SUPPORT_RECALL = 0.8
#: ... or when its embedding is at least this similar to one sentence (the usual paraphrase range of MiniLM) ...
SEMANTIC_SUPPORT_COSINE = 0.8
#: ... or when both kinds of evidence are moderately strong together.
COMBINED_SUPPORT_RECALL = 0.6
COMBINED_SUPPORT_COSINE = 0.65
#: A number (a token with a digit) in a claim must occur somewhere in the texts: a changed date or amount is the
#: typical unfaithful claim.
NUMBERS_MUST_MATCH = True


@dataclass(frozen=True)
class Support:
    """The evidence for one claim: best lexical recall, best cosine, numbers found, and the verdict."""

    lexical: float
    semantic: float
    numbers_ok: bool
    supported: bool


def is_number(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


@lru_cache(maxsize=65536)
def stems(text: str) -> frozenset[str]:
    """Content tokens cut to `STEM_PREFIX_LENGTH` characters (numbers kept whole)."""
    return frozenset(t if is_number(t) else t[:STEM_PREFIX_LENGTH] for t in content_tokens(text))


def claims_of(text: str) -> list[str]:
    """Sentences that carry at least one content token: the claims a text makes."""
    return [s for s in sentences_of(text) if stems(s)]


def recall(claim: str, text: str) -> float:
    """Share of the claim's content stems found in `text` (1.0 for a claim without any)."""
    wanted = stems(claim)
    if not wanted:
        return 1.0
    return len(wanted & stems(text)) / len(wanted)


def shared_stems(left: str, right: str) -> int:
    """How many distinct content stems two texts share (e.g. whether a cited block contributes to an answer)."""
    return len(stems(left) & stems(right))


def windows(texts: Iterable[str], max_sentences: int) -> list[str]:
    """Every run of 1 to `max_sentences` consecutive sentences inside each text, each once."""
    result: list[str] = []
    for text in texts:
        sentences = sentences_of(text)
        for size in range(1, max_sentences + 1):
            result.extend(" ".join(sentences[i : i + size]) for i in range(len(sentences) - size + 1))
    return list(dict.fromkeys(result))


def decide(lexical: float, semantic: float, numbers_ok: bool = True) -> bool:
    """The support rule on the evidence (see the module docstring)."""
    if not numbers_ok:
        return False
    return (
        lexical >= LEXICAL_SUPPORT_RECALL
        or semantic >= SEMANTIC_SUPPORT_COSINE
        or (lexical >= COMBINED_SUPPORT_RECALL and semantic >= COMBINED_SUPPORT_COSINE)
    )


def texts_to_embed(claims: Iterable[str], texts: Sequence[str]) -> list[str]:
    """What `support` embeds for these claims and texts: the claims and the semantic windows."""
    return [*claims, *windows(texts, SEMANTIC_WINDOW_SENTENCES)]


def support(claims: Sequence[str], texts: Sequence[str], embedder: Embedder | None = None) -> list[Support]:
    """The support verdict of each claim against all `texts` (lexical evidence only when `embedder` is None)."""
    lexical_windows = windows(texts, LEXICAL_WINDOW_SENTENCES)
    if not lexical_windows:
        return [Support(0.0, 0.0, False, False) for _ in claims]
    if not claims:
        return []
    if embedder is not None:
        semantic_windows = windows(texts, SEMANTIC_WINDOW_SENTENCES)
        cosines = embedder.similarity(list(claims), semantic_windows).max(axis=1)
    else:
        cosines = np.zeros(len(claims), dtype=np.float32)
    numbers = {t for text in texts for t in stems(text) if is_number(t)}
    results = []
    for claim, cosine in zip(claims, cosines, strict=True):
        lexical = max(recall(claim, window) for window in lexical_windows)
        numbers_ok = not NUMBERS_MUST_MATCH or all(t in numbers for t in stems(claim) if is_number(t))
        results.append(Support(lexical, float(cosine), numbers_ok, decide(lexical, float(cosine), numbers_ok)))
    return results


def is_supported(claim: str, texts: Sequence[str], embedder: Embedder | None = None) -> bool:
    """Every claim sentence of `claim` (or the whole text, when it has no sentence with content) is supported."""
    units = claims_of(claim) or [claim]
    return all(s.supported for s in support(units, texts, embedder))
