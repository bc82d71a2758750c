"""Every threshold of the local judge, in one place, so that it can be tuned against human labels later.

The local judge decides "supported", "relevant" and "useful" from two kinds of evidence:

- lexical: content-token recall, i.e. the share of a statement's content words (stopwords removed, words cut to
  their first `STEM_PREFIX_LENGTH` characters, so "launched" matches "launch") found in one window of
  consecutive sentences of a context;
- semantic: cosine similarity of all-MiniLM-L6-v2 sentence embeddings (normalised, so in [-1, 1]).

The values below are priors chosen from what these measures mean, not fitted to any evaluation set:
a statement whose content words are 80 % present in one place, or whose embedding is a near paraphrase
(cosine >= 0.8, the usual paraphrase range of MiniLM), is supported; a number in a statement that appears
nowhere in the contexts vetoes support, because a changed date or amount is the typical unfaithful claim.
"""

from __future__ import annotations

#: Words are compared on their first characters only (a truncation stemmer).
STEM_PREFIX_LENGTH = 6

#: Lexical evidence: windows of up to this many consecutive sentences of one context (a claim may fuse two).
LEXICAL_WINDOW_SENTENCES = 2
#: Semantic evidence: windows of up to this many sentences (1: single sentences, which keeps embedding cheap).
SEMANTIC_WINDOW_SENTENCES = 1

#: A statement is supported when this share of its content tokens occurs in one context window ...
LEXICAL_SUPPORT_RECALL = 0.8
#: ... or when its embedding is at least this similar to one context window ...
SEMANTIC_SUPPORT_COSINE = 0.8
#: ... or when both kinds of evidence are moderately strong together.
COMBINED_SUPPORT_RECALL = 0.6
COMBINED_SUPPORT_COSINE = 0.65
#: A number (a token with a digit) in a statement must occur somewhere in the contexts to be supported.
NUMBERS_MUST_MATCH = True

#: A context sentence is relevant to a question when its embedding is at least this similar to the question ...
CONTEXT_RELEVANT_COSINE = 0.5
#: ... or when it contains at least this share of the question's content tokens.
CONTEXT_RELEVANT_QUESTION_RECALL = 0.5

#: answer_relevancy (local): a question part's best cosine with an answer sentence below this counts as this.
ANSWER_RELEVANCY_FLOOR = 0.0
