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

#: Strategies whose questions read good most often on held-out documentation (rounds 13-15, 352 questions read by
#: hand, development sets since): concept 89%, option 87%, faq 80%; then default 74%, sentence 72%.
FIRST_TIER_STRATEGIES = frozenset({"faq", "option", "concept"})
#: The tier of a sentence turned by the encyclopedic rules in a documentation chunk (strategy "sentence").
SENTENCE_TIER = 1


def draft_tier(fact: DocFact) -> int:
    """When a documentation draft is screened (`Draft.tier`, 0 first), by how often such drafts read good:
    definitions, options, FAQ entries, instructions naming their means in code and heading how-tos whose answer
    names the whole task and its means first; defaults, heading how-tos whose answer leaves part of the task out
    (an answer for one case of it: "How do you skip tests?" -> "To skip a single check inside a doctest ...") and
    the turned sentences next; how-to answers that name no means last.

    Read by hand on development sets (scrapy, pytest, sphinx pools; 220 questions): concept 24/25, faq 7/7,
    option 23/28, instruction with code 25/34, heading how-to with code naming the task 6/7 against 9/19 without;
    default 14/22, sentence 31/53, no means 10/25. How-to answers naming their means come first although they
    read good less often than definitions: a how-to question is what a user asks a documentation assistant."""
    if names_no_means(fact):
        return 2
    if fact.strategy == "howto" and not names_whole_task(fact):
        return 1
    if fact.strategy in FIRST_TIER_STRATEGIES or fact.strategy in HOWTO_STRATEGIES:
        return 0
    return 1


def names_whole_task(fact: DocFact) -> bool:
    """Whether a how-to reference names every content word of its question's task, in any form ("interpreting"
    for "interpret", "packages" for "package")."""
    task = fact.question.removeprefix("How do you ").rstrip("?")
    named = set().union(*(lemmas(word) for word in _words(fact.reference)))
    return all(lemmas(word) & named for word in _words(task) if word not in STOPWORDS)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z][\w-]*", text.lower())


def names_no_means(fact: DocFact) -> bool:
    """Whether a how-to answer names no means in code (`--debug`, `connect()`): read by hand over three rounds of
    held-out docs (13-15), such answers were good 19 of 40 times (howto) and 15 of 26 (instruction), against 19 of
    27 and 26 of 36 with code; they describe, restate or condition the task more often. Held back, not dropped."""
    return fact.strategy in HOWTO_STRATEGIES and "`" not in fact.reference


def doc_draft(fact: DocFact) -> Draft:
    """A documentation fact's draft: its reference is also its evidence, screened in its tier."""
    return Draft(
        fact.question,
        fact.reference,
        (1,),
        "simple",
        answer_span=" ".join(fact.span.split()),
        evidence=(fact.reference,),
        strategy=fact.strategy,
        tier=draft_tier(fact),
    )
