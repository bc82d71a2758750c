"""Offline multi-context questions: one question whose answer needs a sentence from each of two blocks, citing
both, never two questions joined by "and":
- comparison: the same dated fact or count about two subjects ("Which was released first, Python 2.0 or Python
  3.0?", "Which has more teeth, X or Y?"), or the same question with different answers asked as a choice ("Which is
  a JIT compiler, Numba or PyPy?");
- bridge: one block identifies an entity ("CPython is the reference implementation of Python"), the other states a
  fact about it; the question names the entity only by the first block's description.

The reference answer is a sentence stating the winner and both facts (a comparison) or the two source sentences;
`span` is the short answer. When no pair of facts fits a shape, none is written (the writer counts it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragtest_core.text import word_count
from testgen.filters import is_specific
from testgen.writers.base import Turned
from testgen.writers.english.lexicon import AGENT_NOUNS, FORMS, inflect
from testgen.writers.sentences.reference import join_sentences, reference_sentence

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_DAY_DATE = re.compile(r"^(?:\d{1,2} [A-Z][a-z]+ \d{4}|[A-Z][a-z]+ \d{1,2}, \d{4})$")


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
    span: str
    blocks: tuple[int, int]
    rule: str
    evidence: tuple[str, str]


def combine(facts: list[Fact], max_words: int) -> list[Combined]:
    """Every two-block question from facts of the root (block 1) and of one neighbour (block > 1)."""
    pairs = [(a, b) for a in facts if a.block == 1 for b in facts if b.block != 1]
    made = [
        m
        for a, b in pairs
        for m in (_compare(a, b), _bridge(a, b), _bridge(b, a), _discriminate(a, b), _discriminate(b, a))
    ]
    return [m for m in made if m is not None and word_count(m.question) <= max_words and is_specific(m.question)]


def _year(date: str) -> int | None:
    return int(match.group()) if (match := re.search(r"\d{3,4}", date)) else None


def _at(date: str) -> str:
    return f"on {date}" if _DAY_DATE.match(date) else f"in {date}"


_DATED = re.compile(r"^When (?P<be>was|were) (?P<subj>.+) (?P<verb>\w+)\?$")
_ACTIVE_DATED = re.compile(r"^When did (?P<rest>.+)\?$")
_COUNTED = re.compile(r"^How many (?P<noun>[\w-]+) (?:does|do|did) (?P<subj>.+) have\?$")


def _dated(fact: Fact) -> tuple[str, str, str] | None:
    """(thing, participle, be) of a dated fact: "When was X released?" -> (X, released, was); "When did Sun release
    Java?" -> (Java, released, was)."""
    passive = _DATED.match(fact.turned.question)
    if passive:
        return passive.group("subj"), passive.group("verb"), passive.group("be")
    active = _ACTIVE_DATED.match(fact.turned.question)
    subject = fact.turned.subject
    if active and subject and active.group("rest").startswith(subject + " "):
        verb, _, thing = active.group("rest")[len(subject) + 1 :].partition(" ")
        form = FORMS.get(verb)
        if thing and form is not None and form.base and form.tense == "pres" and thing[:1].isupper():
            return thing, inflect(form.base)[2], "was"
    return None


def _compare(a: Fact, b: Fact) -> Combined | None:
    dated, other = _dated(a), _dated(b)
    if dated and other and dated[1] == other[1]:
        return _compare_dates(a, b, dated, other)
    counted, counted_b = _COUNTED.match(a.turned.question), _COUNTED.match(b.turned.question)
    if counted and counted_b and counted.group("noun") == counted_b.group("noun"):
        return _compare_counts(a, b, counted, counted_b)
    return None


def _compare_dates(a: Fact, b: Fact, dated: tuple[str, str, str], other: tuple[str, str, str]) -> Combined | None:
    ya, yb = _year(a.turned.answer), _year(b.turned.answer)
    (sa, verb, be_a), (sb, _, be_b) = dated, other
    if ya is None or yb is None or ya == yb or sa.lower() == sb.lower():
        return None
    if sa not in a.sentence or sb not in b.sentence:
        return None
    first, be_first = (sa, be_a) if ya < yb else (sb, be_b)
    answer = (
        f"{first} {be_first} {verb} first: {sa} {be_a} {verb} {_at(a.turned.answer)}, and {sb} "
        f"{be_b} {verb} {_at(b.turned.answer)}."
    )
    question = f"Which was {verb} first, {sa} or {sb}?"
    return Combined(question, answer, first, (a.block, b.block), "compare_date", (a.sentence, b.sentence))


def _compare_counts(a: Fact, b: Fact, counted: re.Match[str], counted_b: re.Match[str]) -> Combined | None:
    na, nb = _NUMBER.search(a.turned.answer), _NUMBER.search(b.turned.answer)
    sa, sb = counted.group("subj"), counted_b.group("subj")
    if na is None or nb is None or sa.lower() == sb.lower() or sa not in a.sentence or sb not in b.sentence:
        return None
    va, vb = float(na.group().replace(",", "")), float(nb.group().replace(",", ""))
    if va == vb:
        return None
    noun = counted.group("noun")
    more = sa if va > vb else sb
    answer = f"{more} has more {noun}: {sa} has {a.turned.answer} {noun}, and {sb} has {b.turned.answer} {noun}."
    question = f"Which has more {noun}, {sa} or {sb}?"
    return Combined(question, answer, more, (a.block, b.block), "compare_count", (a.sentence, b.sentence))


_DEFINED = re.compile(r"^What (?P<be>is|was) (?P<subj>.+)\?$")
_PASSIVE_PREP = re.compile(
    r"^What (?P<be>is|was) (?P<subj>.+) (?P<rest>(?:used|known|based|designed|influenced|"
    r"inspired|written|implemented|derived|named) (?:for|as|on|by|in|from|after))\?$"
)
MAX_DISCRIMINATING_WORDS = 5


def _discriminate(winner: Fact, other: Fact) -> Combined | None:
    """The same question about two subjects, one per block, asked as a choice (`winner`'s answer)."""
    w, o = (_DEFINED.match(f.turned.question) or _PASSIVE_PREP.match(f.turned.question) for f in (winner, other))
    if w is None or o is None or {winner.turned.rule, other.turned.rule} & {"identity", "creator"}:
        return None
    rest = (w.groupdict().get("rest"), o.groupdict().get("rest"))
    sw, so = w.group("subj"), o.group("subj")
    answer_w, answer_o = winner.turned.answer, other.turned.answer
    if rest[0] != rest[1] or w.group("be") != o.group("be") or sw.lower() in so.lower() or so.lower() in sw.lower():
        return None
    if answer_w.lower() == answer_o.lower() or len(answer_w.split()) > MAX_DISCRIMINATING_WORDS:
        return None
    if sw.lower() in answer_o.lower() or so.lower() in answer_w.lower() or answer_w.lower() in other.sentence.lower():
        return None
    if not (sw in winner.sentence and so in other.sentence):
        return None
    predicate = f"{rest[0]} {answer_w}" if rest[0] else answer_w
    first, second = sorted((sw, so), key=str.lower)  # the order gives nothing away
    question = f"Which {w.group('be')} {predicate}, {first} or {second}?"
    answer = join_sentences(reference_sentence(winner.sentence, answer_w), reference_sentence(other.sentence, answer_o))
    blocks = tuple(sorted((winner.block, other.block)))
    return Combined(question, answer, sw, (blocks[0], blocks[1]), "discriminate", (winner.sentence, other.sentence))


def _bridge(identifying: Fact, fact: Fact) -> Combined | None:
    """`identifying` names an entity by a description; `fact` asks about the entity: ask with the description."""
    if identifying.block == fact.block:
        return None
    entity, description = _description(identifying.turned)
    if entity is None or description is None or fact.turned.rule in ("definition", "identity", "appositive"):
        return None
    question = fact.turned.question
    pattern = _mention(entity, question)
    if pattern is None or entity in fact.turned.answer:
        return None
    if description.lower() in fact.sentence.lower():
        return None  # the fact's own block already says it: one block answers the question
    rewritten = pattern.sub(description, question, count=1)
    blocks = tuple(sorted((identifying.block, fact.block)))
    answer = join_sentences(
        reference_sentence(identifying.sentence, identifying.turned.answer),
        reference_sentence(fact.sentence, fact.turned.answer),
    )
    evidence = (identifying.sentence, fact.sentence)
    return Combined(rewritten, answer, fact.turned.answer, (blocks[0], blocks[1]), "bridge", evidence)


def _mention(entity: str, question: str) -> re.Pattern[str] | None:
    """How `question` mentions `entity`: in full, or by a person's surname ("Gosling" for "James Gosling")."""
    names = [entity]
    words = entity.split()
    if len(words) >= 2 and all(w[:1].isupper() or w in ("van", "von", "de") for w in words):
        tail = words[-2:] if words[-2].lower() in ("van", "von", "de") else words[-1:]
        names.append(" ".join(tail))
    for name in names:
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE if name != entity else 0)
        if pattern.search(question):
            return pattern
    return None


def _description(turned: Turned) -> tuple[str | None, str | None]:
    """(entity, identifying description) from an identity or creator question."""
    identity = re.match(r"^(?:What|Who) (?:is|was|are|were) (?P<desc>the .+)\?$", turned.question)
    if turned.rule == "identity" and identity:
        return turned.answer, identity.group("desc")
    creator = re.match(r"^Who (?P<verb>\w+) (?P<obj>.+)\?$", turned.question)
    if turned.rule in ("passive_by", "creator") and creator and creator.group("verb") in AGENT_NOUNS:
        return turned.answer, f"the {AGENT_NOUNS[creator.group('verb')]} of {creator.group('obj')}"
    return None, None
