"""When a documentation draft is screened (`Draft.tier`, 0 first): the offline writer's kinds of question ranked by
how often they read good, so that a corpus larger than the test set gives its best kinds first (the generator opens
a later tier when the roots run out or after `GenerationSettings.tier_lookahead` contexts per requested question)."""

from __future__ import annotations

import re

from ragtest_core.text import STOPWORDS
from testgen.writers.base import Draft
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.facts import HOWTO_STRATEGIES
from testgen.writers.english.morphology import lemmas

#: Strategies whose questions read good most often on held-out documentation (docs/generation.md, Tiers).
FIRST_TIER_STRATEGIES = frozenset({"faq", "option", "concept"})
#: The tier of a sentence turned by the encyclopedic rules in a documentation chunk (strategy "sentence").
SENTENCE_TIER = 1


def draft_tier(fact: DocFact) -> int:
    """When a documentation draft is screened (`Draft.tier`, 0 first), by how often such drafts read good (the
    tiers and their readings: docs/generation.md, Tiers). How-to answers naming their means come first although they
    read good less often than definitions: a how-to question is what a user asks a documentation assistant."""
    if fact.strategy in HOWTO_STRATEGIES and "`" not in fact.reference:
        return 2  # no means in code (`--debug`, `connect()`): such answers describe, restate or condition the task
    if fact.strategy == "howto" and not names_whole_task(fact):
        return 1
    return 0 if fact.strategy in FIRST_TIER_STRATEGIES | HOWTO_STRATEGIES else 1


def names_whole_task(fact: DocFact) -> bool:
    """Whether a how-to reference names every content word of its question's task, in any form ("interpreting"
    for "interpret", "packages" for "package")."""
    task = fact.question.removeprefix("How do you ").rstrip("?")
    named = set().union(*(lemmas(word) for word in _words(fact.reference)))
    return all(lemmas(word) & named for word in _words(task) if word not in STOPWORDS)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][\w-]*", text.lower())


def doc_draft(fact: DocFact) -> Draft:
    """A documentation fact's draft: its reference is also its evidence, screened in its tier."""
    span, tier = " ".join(fact.span.split()), draft_tier(fact)
    return Draft(
        fact.question, fact.reference, answer_span=span, evidence=(fact.reference,), strategy=fact.strategy, tier=tier
    )
