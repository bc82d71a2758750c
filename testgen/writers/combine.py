"""Offline multi-context questions: one question whose answer needs a sentence from each of two blocks.

Three honest shapes, each citing both blocks:
- coordination: the same question about two subjects, one answered by each block ("What is PyPy?" in one,
  "What is Numba?" in the other) -> "What are PyPy and Numba?" (answer "PyPy: ...; Numba: ...");
- comparison: the same dated fact about two subjects in two blocks ("Python 2.0 was released in 2000" /
  "Python 3.0 was released in 2008") -> "Which was released first, Python 2.0 or Python 3.0?";
  the same count ("has 42 teeth" / "has 40 teeth") -> "Which has more teeth, X or Y?";
- bridge: one block identifies an entity ("CPython is the reference implementation of Python", "Java was
  designed by James Gosling"), the other states a fact about it; the question names the entity only by the
  first block's description ("When was the reference implementation of Python released?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragtest_core.text import word_count
from testgen.filters import is_specific
from testgen.writers.rules import Turned

AGENT_NOUNS = {
    "created": "creator",
    "designed": "designer",
    "developed": "developer",
    "founded": "founder",
    "invented": "inventor",
    "wrote": "author",
    "conceived": "creator",
    "coined": "coiner",
    "discovered": "discoverer",
    "published": "publisher",
}
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Fact:
    """A turned sentence of one block."""

    block: int
    turned: Turned
    sentence: str


@dataclass(frozen=True)
class Combined:
    question: str
    answer: str
    blocks: tuple[int, int]
    rule: str


def combine(facts: list[Fact], max_words: int) -> list[Combined]:
    """Every two-block question from facts of the root (block 1) and of one neighbour (block > 1)."""
    root = [f for f in facts if f.block == 1]
    others = [f for f in facts if f.block != 1]
    out: list[Combined] = []
    for first in root:
        for second in others:
            for made in (
                _compare(first, second),
                _bridge(first, second),
                _bridge(second, first),
                _coordinate(first, second),
            ):
                if made is not None and word_count(made.question) <= max_words and is_specific(made.question):
                    out.append(made)
    return out


def _year(date: str) -> int | None:
    match = re.search(r"\d{3,4}", date)
    return int(match.group()) if match else None


def _compare(a: Fact, b: Fact) -> Combined | None:
    qa, qb = a.turned.question, b.turned.question
    dated = re.match(r"^When (?P<be>was|were) (?P<subj>.+) (?P<verb>\w+)\?$", qa)
    other = re.match(r"^When (?:was|were) (?P<subj>.+) (?P<verb>\w+)\?$", qb)
    if dated and other and dated.group("verb") == other.group("verb"):
        ya, yb = _year(a.turned.answer), _year(b.turned.answer)
        sa, sb = dated.group("subj"), other.group("subj")
        if ya is None or yb is None or ya == yb or sa.lower() == sb.lower():
            return None
        first = sa if ya < yb else sb
        answer = first if first in (a.sentence if first == sa else b.sentence) else None
        if answer is None:
            return None
        question = f"Which was {dated.group('verb')} first, {sa} or {sb}?"
        return Combined(question, answer, (a.block, b.block), "compare_date")
    counted = re.match(r"^How many (?P<noun>[\w-]+) (?:does|do|did) (?P<subj>.+) have\?$", qa)
    counted_b = re.match(r"^How many (?P<noun>[\w-]+) (?:does|do|did) (?P<subj>.+) have\?$", qb)
    if counted and counted_b and counted.group("noun") == counted_b.group("noun"):
        na, nb = _NUMBER.search(a.turned.answer), _NUMBER.search(b.turned.answer)
        sa, sb = counted.group("subj"), counted_b.group("subj")
        if na is None or nb is None or sa.lower() == sb.lower():
            return None
        va, vb = float(na.group().replace(",", "")), float(nb.group().replace(",", ""))
        if va == vb:
            return None
        more = sa if va > vb else sb
        if more not in (a.sentence if more == sa else b.sentence):
            return None
        return Combined(
            f"Which has more {counted.group('noun')}, {sa} or {sb}?", more, (a.block, b.block), "compare_count"
        )
    return None


_PLURAL_AUX = {"is": "are", "was": "were", "does": "do", "has": "have"}


def _frame(turned: Turned) -> str | None:
    """The question with its subject replaced by "{}" and the verb made plural; None without a subject slot."""
    subject = turned.subject
    if not subject or turned.question.count(subject) != 1:
        return None
    words = turned.question.replace(subject, "{}").split(" ")
    return " ".join(_PLURAL_AUX.get(w, w) for w in words)


def _coordinate(a: Fact, b: Fact) -> Combined | None:
    """The same question about two subjects, one per block: "What are PyPy and Numba?"."""
    frame_a, frame_b = _frame(a.turned), _frame(b.turned)
    sa, sb = a.turned.subject, b.turned.subject
    if frame_a is None or frame_a != frame_b or sa.lower() in sb.lower() or sb.lower() in sa.lower():
        return None
    if a.turned.answer.lower() == b.turned.answer.lower():
        return None
    question = frame_a.replace("{}", f"{sa} and {sb}", 1)
    answer = f"{sa}: {a.turned.answer}; {sb}: {b.turned.answer}"
    return Combined(question, answer, (a.block, b.block), "coordinate")


def _bridge(identifying: Fact, fact: Fact) -> Combined | None:
    """`identifying` names an entity by a description; `fact` asks about the entity: ask with the description."""
    if identifying.block == fact.block:
        return None
    entity, description = _description(identifying.turned)
    if entity is None or description is None or fact.turned.rule in ("definition", "identity", "appositive"):
        return None
    question = fact.turned.question
    pattern = re.compile(rf"(?<![\w-]){re.escape(entity)}(?![\w-])")
    if not pattern.search(question) or entity in fact.turned.answer:
        return None
    rewritten = pattern.sub(description, question, count=1)
    blocks = tuple(sorted((identifying.block, fact.block)))
    return Combined(rewritten, fact.turned.answer, (blocks[0], blocks[1]), "bridge")


def _description(turned: Turned) -> tuple[str | None, str | None]:
    """(entity, identifying description) from an identity or creator question."""
    identity = re.match(r"^(?:What|Who) (?:is|was|are|were) (?P<desc>the .+)\?$", turned.question)
    if turned.rule == "identity" and identity:
        return turned.answer, identity.group("desc")
    creator = re.match(r"^Who (?P<verb>\w+) (?P<obj>.+)\?$", turned.question)
    if turned.rule in ("passive_by", "creator") and creator and creator.group("verb") in AGENT_NOUNS:
        return turned.answer, f"the {AGENT_NOUNS[creator.group('verb')]} of {creator.group('obj')}"
    return None, None
