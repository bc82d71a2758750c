"""The local judge: sentence embeddings plus lexical alignment, no LLM.

"Is this statement supported by these contexts?" is `ragtest_core.support` (the same rule the test-set generator
uses for groundedness); the judge's own thresholds (relevance) live in `evaluation.thresholds`. Embeddings come
from the shared `Embedder`; the engine embeds every text of a run in one batch first (`texts_for_*`), so the
scoring calls here only read the embedder's memo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ragtest_core import support as rule
from ragtest_core.embeddings import Embedder
from ragtest_core.support import Support
from ragtest_core.text import sentences_of

__all__ = ["LocalJudge", "Support"]


class LocalJudge:
    """Embedding and lexical evidence over memoised sentence splits and token sets."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        #: The reference mean for centred similarities (set by the engine; see `evaluation.centring`).
        self.reference_mean: np.ndarray | None = None

    def sentences(self, text: str) -> list[str]:
        return sentences_of(text)

    def tokens(self, text: str) -> frozenset[str]:
        """Content tokens cut to the support rule's stem length (numbers kept whole)."""
        return rule.stems(text)

    def claims(self, text: str) -> list[str]:
        """Sentences that carry at least one content token (the local stand-in for extracted statements)."""
        return rule.claims_of(text)

    def cosine(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        return self.embedder.similarity(list(left), list(right))

    def support(self, statements: Sequence[str], contexts: Sequence[str]) -> list[Support]:
        """The support verdict of each statement against all `contexts` (`ragtest_core.support`)."""
        return rule.support(statements, contexts, self.embedder)

    def texts_for_support(self, statements: Iterable[str], contexts: Sequence[str]) -> list[str]:
        """The statements and the semantic windows: what `support` will embed."""
        return rule.texts_to_embed(statements, contexts)
