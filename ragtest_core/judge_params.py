"""The offline judge's parameters in one frozen object: every cut-off, count and word-list switch the support and
relevance rules and the local metrics score with (the fitted support model and the calibration map are files of
their own: `ragtest_core.support`, `ragtest_core.relevance`).

The modules read `judge_params.PARAMS` when they score, and the judge's settings and fingerprint
(`evaluation.judge_settings`) record this object whole, so a changed parameter always changes the fingerprint and
`compare` refuses runs scored under different ones. An ablation swaps in `dataclasses.replace(PARAMS, ...)` (and
clears `ragtest_core.textunits.unit`'s cache).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class JudgeParams:
    """See the module docstring; each field names the module whose rule reads it."""

    #: textunits: content words are compared on their first characters only (a truncation stemmer).
    stem_prefix_length: int = 6
    #: textunits: words that are not content words (empty: fillers stay content; see bench/support_ablation.py).
    non_content: frozenset[str] = frozenset()
    #: textunits: a sentence whose content words all lie in this set makes no claim (empty).
    no_claim: frozenset[str] = frozenset()
    #: support: a claim is supported when its graded value reaches this (even odds before the verbatim rescale).
    supported_at: float = 0.5
    #: relevance: a sentence is also read without its clauses when it has at most this many.
    max_clauses: int = 5
    #: relevance: a reading still answers when it adds at least this many words of its own.
    min_new_words: int = 1
    #: local context precision: a context alone supporting a reference statement this well is useful ...
    useful_support: float = 0.5
    #: ... or one the contexts need together, holding this share of the statement's content words.
    own_share: float = 0.25
    #: local citations: the cited contexts support a statement at this graded value.
    citation_support: float = 0.5
    #: answer_relevancy (LLM judge): a generated question's centred cosine below this counts as this.
    answer_relevancy_floor: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """Every parameter, word sets as sorted lists (JSON for the manifest and the fingerprint)."""
        return {k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(self).items()}


#: The parameters every rule reads (replace it, never mutate it: the object is frozen).
PARAMS = JudgeParams()
