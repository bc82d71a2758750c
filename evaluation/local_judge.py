"""The local judge: sentence embeddings plus lexical alignment, no LLM. Thresholds live in `thresholds`.

Support rule (used by faithfulness, context_precision and context_recall): a statement is supported by a set of
contexts when, taking its best lexical window (up to `LEXICAL_WINDOW_SENTENCES` consecutive sentences of one
context) and its best semantic window (up to `SEMANTIC_WINDOW_SENTENCES`),

- the lexical window contains at least `LEXICAL_SUPPORT_RECALL` of the statement's content tokens, or
- the semantic window has embedding cosine >= `SEMANTIC_SUPPORT_COSINE` with the statement, or
- both reach `COMBINED_SUPPORT_RECALL` and `COMBINED_SUPPORT_COSINE`,

and (when `NUMBERS_MUST_MATCH`) every number in the statement occurs somewhere in the contexts.

Embeddings come from the shared `Embedder`; the engine embeds every text of a run in one batch first
(`texts_for_*`), so the scoring calls here only read the embedder's memo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation import thresholds as th
from evaluation.sample import sentences_of
from ragtest.embeddings import Embedder
from ragtest.text import content_tokens


@dataclass(frozen=True)
class Support:
    """The evidence for one statement: best lexical recall, best cosine, numbers found, and the verdict."""

    lexical: float
    semantic: float
    numbers_ok: bool
    supported: bool


def is_number(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


class LocalJudge:
    """Embedding and lexical evidence with memoised sentence splits and token sets."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        #: The reference mean for centred similarities (set by the engine; see `evaluation.centring`).
        self.reference_mean: np.ndarray | None = None
        self._sentences: dict[str, list[str]] = {}
        self._tokens: dict[str, frozenset[str]] = {}

    # -- text units -------------------------------------------------------------------------------------------

    def sentences(self, text: str) -> list[str]:
        if text not in self._sentences:
            self._sentences[text] = sentences_of(text)
        return self._sentences[text]

    def tokens(self, text: str) -> frozenset[str]:
        """Content tokens cut to `STEM_PREFIX_LENGTH` characters (numbers kept whole)."""
        if text not in self._tokens:
            self._tokens[text] = frozenset(
                t if is_number(t) else t[: th.STEM_PREFIX_LENGTH] for t in content_tokens(text)
            )
        return self._tokens[text]

    def claims(self, text: str) -> list[str]:
        """Sentences that carry at least one content token (the local stand-in for extracted statements)."""
        return [s for s in self.sentences(text) if self.tokens(s)]

    def windows(self, contexts: Sequence[str], max_sentences: int) -> list[str]:
        """Every run of 1 to `max_sentences` consecutive sentences inside each context."""
        result: list[str] = []
        for context in contexts:
            sentences = self.sentences(context)
            for size in range(1, max_sentences + 1):
                result.extend(" ".join(sentences[i : i + size]) for i in range(len(sentences) - size + 1))
        return list(dict.fromkeys(result))

    # -- evidence ---------------------------------------------------------------------------------------------

    def cosine(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        return self.embedder.similarity(list(left), list(right))

    def recall(self, statement: str, text: str) -> float:
        """Share of the statement's content tokens found in `text` (1.0 for a statement without any)."""
        wanted = self.tokens(statement)
        if not wanted:
            return 1.0
        return len(wanted & self.tokens(text)) / len(wanted)

    def support(self, statements: Sequence[str], contexts: Sequence[str]) -> list[Support]:
        """The support verdict of each statement against all `contexts`."""
        windows = self.windows(contexts, th.LEXICAL_WINDOW_SENTENCES)
        if not windows:
            return [Support(0.0, 0.0, False, False) for _ in statements]
        if not statements:
            return []
        cosines = self.cosine(statements, self.windows(contexts, th.SEMANTIC_WINDOW_SENTENCES))
        context_numbers = {t for c in contexts for t in self.tokens(c) if is_number(t)}
        results = []
        for row, statement in enumerate(statements):
            lexical = max(self.recall(statement, w) for w in windows)
            semantic = float(cosines[row].max())
            numbers_ok = not th.NUMBERS_MUST_MATCH or all(
                t in context_numbers for t in self.tokens(statement) if is_number(t)
            )
            results.append(Support(lexical, semantic, numbers_ok, numbers_ok and supports(lexical, semantic)))
        return results

    # -- texts to embed up front ------------------------------------------------------------------------------

    def texts_for_support(self, statements: Iterable[str], contexts: Sequence[str]) -> list[str]:
        """The statements and the semantic windows: what `support` will embed."""
        return [*statements, *self.windows(contexts, th.SEMANTIC_WINDOW_SENTENCES)]


def supports(lexical: float, semantic: float) -> bool:
    """The support rule on the two kinds of evidence (see the module docstring)."""
    return (
        lexical >= th.LEXICAL_SUPPORT_RECALL
        or semantic >= th.SEMANTIC_SUPPORT_COSINE
        or (lexical >= th.COMBINED_SUPPORT_RECALL and semantic >= th.COMBINED_SUPPORT_COSINE)
    )
