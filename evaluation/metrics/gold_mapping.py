"""Which retrieved contexts are gold chunks when the RAG's ids are not ragtest's: matched by their text.

A user's RAG has its own chunk ids (and often its own chunking), so its `context_ids` never equal the test set's
`reference_context_ids`, and id matching would score every row 0. When no retrieved id is a gold id, each
retrieved context is matched to a gold chunk (`reference_contexts`) by text:

1. exact: the same text once whitespace and case are normalised;
2. high overlap: at least `OVERLAP_THRESHOLD` of the shorter text's word trigrams occur in the other, so a chunk
   that contains a gold chunk, or lies inside one (another chunker's boundaries), still counts.

The score's reason says which mapping was used ("ids", "exact text" or "text overlap"). Two retrieved chunks may
match one gold chunk (another chunker cut it in two, or the RAG returned one passage twice): the gold chunk counts
once, at its first rank, and the reason says how many retrieved chunks shared it (the RAG's ids were distinct: no
"repeated id" was ignored).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Share of the shorter text's word trigrams that must occur in the other text for the two to be one passage.
OVERLAP_THRESHOLD = 0.7
IDS = "ids"
EXACT = "exact text"
OVERLAP = "text overlap"
_WORD = re.compile(r"\w+")


def normalise(text: str) -> str:
    return " ".join(text.lower().split())


def trigrams(text: str) -> frozenset[tuple[str, ...]]:
    """The word trigrams of a text (its words, for a text of fewer than three words)."""
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return frozenset((w,) for w in words)
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def overlap(left: str, right: str) -> float:
    """Shared trigrams over the trigrams of the shorter text (0.0 when either has none)."""
    a, b = trigrams(left), trigrams(right)
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


@dataclass(frozen=True)
class TextMapping:
    """Retrieved contexts relabelled so that a context matching gold chunk j gets the id of gold chunk j."""

    retrieved: list[str]
    gold: list[str]
    method: str


_GOLD = "gold#"


def gold_label(index: int) -> str:
    return f"{_GOLD}{index + 1}"


def is_gold_label(label: str) -> bool:
    """True for a retrieved context's label that names a gold chunk (`gold_label`)."""
    return label.startswith(_GOLD)


def map_by_text(contexts: Sequence[str], reference_contexts: Sequence[str]) -> TextMapping:
    """Each retrieved context labelled with the gold chunk it matches (exact first, then best overlap)."""
    exact = {normalise(text): j for j, text in enumerate(reference_contexts)}
    labels, methods = [], set()
    for i, text in enumerate(contexts):
        j = exact.get(normalise(text))
        if j is not None:
            labels.append(gold_label(j))
            methods.add(EXACT)
            continue
        scores = [overlap(text, gold) for gold in reference_contexts]
        best = max(range(len(scores)), key=scores.__getitem__, default=None)
        if best is not None and scores[best] >= OVERLAP_THRESHOLD:
            labels.append(gold_label(best))
            methods.add(OVERLAP)
        else:
            labels.append(f"retrieved#{i + 1}")
    method = OVERLAP if OVERLAP in methods else EXACT
    return TextMapping(labels, [gold_label(j) for j in range(len(reference_contexts))], method)
