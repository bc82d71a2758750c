"""The question-answer relevance check: is the reference answer about what the question asks?

Measured on the local judge's embeddings (all-MiniLM-L6-v2, trained on question-answer pairs): the cosine between
the question and its reference answer. A pair below `MIN_ANSWER_RELEVANCE` answers something else (an answer about
another subject, a writer that mixed up its pairs); whether the answer is right, complete or a definition is left to
the other checks (the critic, the offline writer's definition and grammar checks).

Kept in this one small function so that a calibrated relevance scale can replace it later.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragtest_core.embeddings import Embedder

#: The lowest cosine between a question and its reference answer for the pair to be kept. A prior read off the
#: seven articles of ../shared/data/wikipedia (in-sample there): questions turned from a sentence and that sentence
#: score 0.41 at the 1st percentile and 0.75 at the median; an answer about another subject scored 0.04-0.35 in
#: spot checks ("What do polar bears eat?" / a sentence about Python's + operator: 0.04).
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
