"""The checks a turned sentence of documentation passes before it becomes a question (`ExtractiveWriter`): it
may not point at text the reader cannot see, talk about the docs themselves, lean on its section for its subject,
or give one answer of several; and what the writer knows of the documentation as a whole to decide that
(`PageIndex`: its headings, and how many pages use a phrase)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from testgen.chunking import Chunk
from testgen.structure import PATH_SEPARATOR
from testgen.writers.base import Turned
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.specific import anchored, example_answer, ranking, relative_subject, thin_answer
from testgen.writers.docs.text import pronoun_problem
from testgen.writers.english.clause import Casing
from testgen.writers.english.tagger import BASE_VERB, tag_words

#: Documentation sentences that point at what a reader of the test set cannot see.
POINTS_ELSEWHERE = re.compile(
    r"\b(?:this|the previous|the next|the following|the above) (?:page|section|chapter|document|guide|tutorial|"
    r"example|sections|chapters)\b|\b(?:below|above)[.,]|\bthe following\b|"
    r"\b(?:documented|described|shown|listed|explained) (?:below|above|later|earlier)\b|\bas follows\b|"
    r"\bis available (?:in|at|on) the\b.*\b(?:documentation|docs|reference|guide|section|tutorial|website)\b",
    re.IGNORECASE,
)

#: "X also enables Y": the sentence gives one answer of several, so "What does X enable?" it answers only in part.
_ALSO = re.compile(r"\b(?:also|as well)\b(?! as)", re.IGNORECASE)
#: Parts of the documentation itself: "What is the more in-depth advanced usage guide?" asks about the docs.
_DOC_PARTS = frozenset({"guide", "page", "section", "chapter", "documentation", "docs", "tutorial", "tutorials"})
#: An answer that holds only under a condition the question does not state ("will raise SSLError if ...").
_CONDITION = re.compile(r"(?:[^\s,;]+\s+){0,2}?\b(?:if|unless|otherwise)\b", re.IGNORECASE)
#: A person's name with initials ("Nathaniel J. Smith", "B. Russell").
_PERSON = re.compile(r"^(?:[A-Z][a-z]+ )?(?:[A-Z]\. )+[A-Z][a-z]+$")
#: "a third line number style", "another option": one of several, so the question has other answers.
_ONE_OF_SEVERAL = re.compile(r"^(?:a (?:second|third|fourth|further)|another|an? additional|additional|other)\b")
#: "What did Python 3.14 add?": a release changes many things; one sentence names one of them.
_RELEASE_CHANGE = re.compile(r"\d+(?:\.\d+)+ (?:add|introduce|include|remove|drop|deprecate|change)\?$")

#: A subject with no name or code that this many pages of the docs use is ambiguous without its section.
AMBIGUOUS_PAGES = 3
#: A name on this share of the documentation's pages (the product's) names nothing in particular on its own.
COMMON_SHARE = 0.4


def heading_parts(chunk: Chunk) -> list[str]:
    """The headings of a chunk's section, outermost first ("Quickstart > Sending JSON" -> both)."""
    return [part.strip() for part in (chunk.heading_path or "").split(PATH_SEPARATOR)]


@dataclass(frozen=True)
class PageIndex:
    """The documentation as a whole, for the checks: its headings (lower case), how many of its pages use a phrase
    (`count_pages`: the store's `documents_containing`) and how many structured pages it has."""

    headings: frozenset[str] = frozenset()
    count_pages: Callable[[str], int] = lambda _: 0
    pages: int = 0

    def pages_using(self, phrase: str) -> int:
        return self.count_pages(f" {phrase} ")

    def common(self, name: str) -> bool:
        """Whether a name is on at least `COMMON_SHARE` of the documentation's pages (the product's own name)."""
        return bool(self.pages) and self.pages_using(name) >= max(AMBIGUOUS_PAGES, COMMON_SHARE * self.pages)

    def rare(self, word: str) -> bool:
        """Whether fewer than `AMBIGUOUS_PAGES` pages of the docs use a word."""
        return self.pages_using(word) < AMBIGUOUS_PAGES

    def ambiguous_task(self, fact: DocFact) -> str | None:
        """ "How do you open the file?", "How do you activate the environment?", "How do you report on the
        results?": a how-to task whose object is a definite common noun that three or more pages use names no one
        thing."""
        match = re.match(r"^How do you \w+(?: [a-z]+)? the ([a-z][\w-]*(?: [a-z][\w-]*)?)\?$", fact.question)
        if fact.strategy not in ("instruction", "howto") or match is None:
            return None
        return "ambiguous_subject" if self.pages_using(match.group(1)) >= AMBIGUOUS_PAGES else None


def docs_problem(turned: Sequence[Turned], sentence: str, headings: Collection[str]) -> str | None:
    """Why a documentation sentence gives no question: it points at text the reader cannot see ("shown in the
    previous sections", "on this page"), or its subject is a heading ("The Developer Interface provides ...": the
    page talking about itself)."""
    if POINTS_ELSEWHERE.search(sentence):
        return "points_elsewhere"
    if "..." in sentence or "…" in sentence:
        return "ellipsis"  # "Dequeues use select ... for update skip locked.": words left out
    tokens = sentence.replace("`", "").split()
    if tokens[0].lower() in ("let's", "let’s") or (
        len(tokens) > 2 and tokens[0].istitle() and tag_words(tuple(tokens[:4]))[0] in BASE_VERB
    ):
        return "imperative"  # "Assume conftest.py provides two named factories.": no subject to ask about
    if any(_PERSON.match(t.subject) for t in turned):
        return "person"  # "Nathaniel J. Smith is the Trio BDFL.": "What is ...?" of a person; who, in docs
    for t in turned:
        subject = t.subject.lower().removeprefix("the ")
        if subject and subject in headings and len(subject.split()) > 1:
            return "heading_subject"
        if subject.split()[-1:] and subject.split()[-1] in _DOC_PARTS:
            return "about_the_docs"
    return None


def specific_problem(turned: Turned, sentence: str, heading: str, casing: Casing, pages: PageIndex) -> str | None:
    """Why a documentation question leans on its section (None: it does not): a pronoun, a subject that names
    nothing on its own (`specific.anchored`) or that many pages use, an answer of several or under a condition."""
    if pronoun_problem(turned.question):
        return "unresolved_pronoun"
    if re.search(r"\b(?:would|could|might)\b", turned.question):
        return "hypothetical"  # "What would the --user installation lack?": a case the section imagines
    named = lambda word: casing.inner_capital[word.lower()] > 0  # noqa: E731
    if turned.subject and not anchored(turned.subject, sentence, heading, pages.rare, named, pages.common):
        return "unanchored_subject"
    answered_at = sentence.find(turned.answer[:20])
    if _ALSO.search(sentence[: answered_at if answered_at > 0 else len(sentence)]):
        return "partial_answer"  # "The replace parameter also enables ...": one of several things
    if _RELEASE_CHANGE.search(turned.question) or _ONE_OF_SEVERAL.match(turned.answer.lower()):
        return "partial_answer"
    if ranking(turned.subject) or relative_subject(turned.subject):
        return "ranking_subject"  # "the most basic option"; "the other half of WSGI", "the same path"
    if thin_answer(turned.answer):
        return "vague_answer"
    after = sentence[answered_at + len(turned.answer) :] if answered_at >= 0 else ""
    if _CONDITION.search(turned.answer) or _CONDITION.match(after.lstrip(" `")):
        return "conditional_answer"  # "What will the PoolManager raise?" -> "SSLError if verification fails"
    if example_answer(turned.answer):
        return "example_answer"  # "The __all__ list marks hello as public": the example's module
    subject = turned.subject.removeprefix("the ").strip()
    definite = turned.subject.startswith("the ") and subject == subject.lower()
    many = definite and not any(c.isdigit() for c in subject) and pages.pages_using(subject) >= AMBIGUOUS_PAGES
    return "ambiguous_subject" if many else None
