"""The question-answer relevance check: is the reference answer about what the question asks?

Measured on the local judge's embeddings (all-MiniLM-L6-v2, trained on question-answer pairs): the cosine between
the question and its reference answer. A pair below `MIN_ANSWER_RELEVANCE` answers something else (an answer about
another subject, a writer that mixed up its pairs); whether the answer is right, complete or a definition is left to
the other checks (the critic, the offline writer's definition and grammar checks).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragtest_core.embeddings import Embedder

#: The lowest cosine between a question and its reference answer for the pair to be kept (a prior read off the
#: development data: docs/generation.md, "Filters").
MIN_ANSWER_RELEVANCE = 0.3
#: Shorter answers (a bare name, date or number) carry too little text for an embedding to judge; they are kept.
MIN_JUDGED_ANSWER_WORDS = 4


def answer_relevance(embedder: Embedder, questions: Sequence[str], answers: Sequence[str]) -> np.ndarray:
    """Per pair, the cosine between the question and its answer (embeddings are unit vectors)."""
    if not questions:
        return np.zeros(0, dtype=np.float32)
    return np.asarray(np.sum(embedder.embed(list(questions)) * embedder.embed(list(answers)), axis=1))


def is_relevant(score: float, answer: str = "") -> bool:
    """Whether a pair with this `answer_relevance` score is kept (always, for an answer too short to judge)."""
    return score >= MIN_ANSWER_RELEVANCE or len(answer.split()) < MIN_JUDGED_ANSWER_WORDS
