"""The local judge's relevance thresholds, in one place. (Support thresholds: `ragtest_core.support`.)

Semantic evidence is the cosine similarity of all-MiniLM-L6-v2 sentence embeddings; lexical evidence is the share
of the question's content tokens (see `ragtest_core.support.stems`).
"""

from __future__ import annotations

#: A context sentence is relevant to a question when its embedding is at least this similar to the question ...
CONTEXT_RELEVANT_COSINE = 0.5
#: ... or when it contains at least this share of the question's content tokens.
CONTEXT_RELEVANT_QUESTION_RECALL = 0.5

#: answer_relevancy (local): a question part's best cosine with an answer sentence below this counts as this.
ANSWER_RELEVANCY_FLOOR = 0.0
