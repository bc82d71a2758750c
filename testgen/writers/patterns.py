"""Rules that turn one English declarative sentence into a wh-question whose answer is a span of it.

Each rule matches a clean shape ("X was released in 2008.", "X was created by Y.", "X is a Y.", ...).
A sentence that no rule turns cleanly is skipped with a reason: pronoun or vague subjects, parentheses and
citations, questions, fragments, subjects or answers that are too long.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ragtest.text import STOPWORDS, content_tokens, word_count
from testgen.writers.vocabulary import (
    AUX_WORDS,
    BY_VERBS,
    DATE_VERBS,
    DEICTIC,
    DETERMINERS,
    OBJECT_VERBS,
    PLACE_VERBS,
    PRONOUNS,
    VAGUE_STARTS,
    words,
)

MAX_QUESTION_WORDS = 10
MAX_SUBJECT_WORDS = 6
MAX_ANSWER_WORDS = 20

_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DATE = (
    rf"(?:\d{{1,2}} {_MONTH} \d{{4}}|{_MONTH} \d{{1,2}}, \d{{4}}|{_MONTH} \d{{4}}"
    r"|(?:the )?(?:early |mid-|mid |late )?\d{3,4}s|\d{4})(?![\w-])"
)
SUBJ = r"(?P<subj>[A-Z0-9][\w.+#'’&-]*(?: [\w.+#'’&-]+){0,5}?)"
NAME = r"(?P<agent>(?:the )?[A-Z][\w.'’-]*(?: (?:[A-Z][\w.'’-]*|van|von|de|der|da|del|of|and|&))*)"
_ADVERB = (
    r"(?:(?:first|originally|initially|officially|formally|later|also|jointly|mainly|primarily|mostly) )?"
)
_CLAUSE_END = re.compile(
    r", (?:which|who|whose|where|while|whereas|although|because|but|and then|such as|including|with)\b"
    r"| (?:which|whose|whereas|although|because|when|while)\b|[;:]"
)
_PREPOSITIONS = words("of in between for with on at to from by about among")
_ADJECTIVE_END = re.compile(r"(?:-\w+|al|ic|ive|ous|ful|er|ed|ing|able|ible|less|ary)$")
_COUNT = (
    r"(?P<count>(?:about |around |approximately |over |more than |nearly |almost |up to |some )?"
    r"(?:\d[\d,.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|hundreds of|thousands of)(?: million| billion| thousand| hundred)?)"
)


@dataclass(frozen=True)
class Turned:
    """A question, its answer (a span of the sentence) and the rule that made it."""

    question: str
    answer: str
    rule: str


class Skip(Exception):
    """A sentence no rule turns cleanly; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def turn_sentence(sentence: str, proper_nouns: frozenset[str] = frozenset()) -> Turned:
    """The first rule that turns `sentence` cleanly, or raise `Skip` with the reason.

    `proper_nouns` (see `proper_nouns()`): a subject's first word keeps its capital only when it is one of
    them (so "Brown bears are ..." asks about "brown bears", "Python is ..." about "Python").
    """
    body = _check_sentence(sentence)
    reasons: list[str] = []
    for rule in RULES:
        try:
            turned = rule(body, proper_nouns)
        except Skip as skip:
            reasons.append(skip.reason)
            continue
        if turned is None:
            continue
        if word_count(turned.question) > MAX_QUESTION_WORDS:
            reasons.append("question_too_long")
            continue
        if word_count(turned.answer) > MAX_ANSWER_WORDS:
            reasons.append("answer_too_long")
            continue
        return turned
    raise Skip(reasons[0] if reasons else "no_pattern")


def _check_sentence(sentence: str) -> str:
    text = sentence.strip()
    if text.endswith("?"):
        raise Skip("question")
    if not text.endswith("."):
        raise Skip("fragment")
    if re.search(r"[()\[\]{}]|\^|\bcitation\b", text):
        raise Skip("parenthesis_or_citation")
    if not text[0].isupper() and not text[0].isdigit():
        raise Skip("fragment")
    if text.split()[0].lower().strip(",") in PRONOUNS:
        raise Skip("pronoun_or_vague_subject")
    words = word_count(text)
    if words < 4:
        raise Skip("fragment")
    if words > 45:
        raise Skip("sentence_too_long")
    return text[:-1]


def _subject(match: re.Match[str], proper_nouns: frozenset[str]) -> str:
    """The matched subject, checked and with a leading determiner lower-cased."""
    subject = match.group("subj").strip()
    words = subject.split()
    first = words[0].lower()
    if first in VAGUE_STARTS:
        raise Skip("pronoun_or_vague_subject")
    if len(words) > MAX_SUBJECT_WORDS or "," in subject:
        raise Skip("subject_too_long")
    if any(w.lower() in AUX_WORDS for w in words):
        raise Skip("complex_subject")
    if any(w.lower() in DEICTIC for w in words):
        raise Skip("pronoun_or_vague_subject")
    if any(w.islower() and w.endswith("ed") for w in words[1:]):
        raise Skip("complex_subject")  # "Native people respected the animal and": a clause, not a noun phrase
    if first in DETERMINERS:
        rest = words[1:]
        if not rest or not any(w[0].isupper() or any(ch.isdigit() for ch in w) for w in rest):
            raise Skip("pronoun_or_vague_subject")  # "The result", "A language": unclear without context
        return " ".join([first, *rest])
    if words[0] not in proper_nouns and words[0].isalpha() and words[0][1:].islower():
        return " ".join(
            [first, *words[1:]]
        )  # "Brown bears" -> "brown bears": capital only from the sentence start
    return subject


def is_plural(subject: str) -> bool:
    """Whether the head noun (last word before any preposition) looks plural: "threats to bears" -> yes."""
    words = subject.split()
    cut = next((i for i, w in enumerate(words) if i > 0 and w.lower() in _PREPOSITIONS), len(words))
    head = words[cut - 1]
    return head.islower() and head.endswith("s") and not head.endswith(("ss", "us", "is"))


def _clip(answer: str) -> str:
    """The answer up to the first clause boundary (still a span of the sentence)."""
    cut = _CLAUSE_END.search(answer)
    clipped = answer[: cut.start()] if cut else answer
    clipped = _clip_list_comma(clipped).strip()
    if not content_tokens(clipped) or clipped.split()[-1].lower() in STOPWORDS:
        raise Skip("no_answer")
    return clipped


def _clip_list_comma(text: str) -> str:
    """Cut at the first comma that does not just separate adjectives ("a high-level, general-purpose ...")."""
    start = 0
    while (comma := text.find(",", start)) != -1:
        before = text[:comma].split()
        if not before or before[-1][0].isupper() or not _ADJECTIVE_END.search(before[-1]):
            return text[:comma]
        start = comma + 1
    return text


def _appositive_date(body: str, names: frozenset[str]) -> Turned | None:
    verbs = "|".join(DATE_VERBS)
    m = re.match(rf"^{SUBJ}, (?:first )?(?P<verb>{verbs}) (?:in|on) (?P<date>{DATE}),", body)
    if not m:
        return None
    return Turned(f"When was {_subject(m, names)} {m.group('verb')}?", m.group("date"), "appositive_date")


def _passive_by(body: str, names: frozenset[str]) -> Turned | None:
    verbs = "|".join(BY_VERBS)
    m = re.match(
        rf"^{SUBJ} (?P<aux>was|were|is|are) {_ADVERB}(?P<verb>{verbs}) (?:[\w'’-]+ ){{0,6}}?by {NAME}", body
    )
    if not m:
        return None
    past, present = BY_VERBS[m.group("verb")]
    verb = past if m.group("aux") in ("was", "were") else present
    agent = re.sub(r"(?: (?:of|and|&|van|von|de|der|da|del))+$", "", m.group("agent"))
    return Turned(f"Who {verb} {_subject(m, names)}?", agent, "passive_by")


def _passive_date(body: str, names: frozenset[str]) -> Turned | None:
    verbs = "|".join(DATE_VERBS)
    m = re.match(
        rf"^{SUBJ} (?P<aux>was|were) {_ADVERB}(?P<verb>{verbs}) "
        rf"(?:[\w'’-]+ ){{0,4}}?(?:in|on) (?P<date>{DATE})",
        body,
    )
    if not m:
        return None
    return Turned(
        f"When {m.group('aux')} {_subject(m, names)} {m.group('verb')}?", m.group("date"), "passive_date"
    )


def _place(body: str, names: frozenset[str]) -> Turned | None:
    verbs = "|".join(PLACE_VERBS)
    m = re.match(rf"^{SUBJ} (?P<aux>is|are|was|were) {_ADVERB}(?P<verb>{verbs}) in (?P<place>.+)$", body)
    if not m:
        return None
    question = f"Where {m.group('aux')} {_subject(m, names)} {m.group('verb')}?"
    return Turned(question, _clip(m.group("place")), "place")


def _count(body: str, names: frozenset[str]) -> Turned | None:
    m = re.match(rf"^{SUBJ} (?P<verb>has|have|had) {_COUNT} (?P<noun>[a-z][\w-]*)\b", body)
    if not m:
        return None
    do = {"has": "does", "have": "do", "had": "did"}[m.group("verb")]
    return Turned(f"How many {m.group('noun')} {do} {_subject(m, names)} have?", m.group("count"), "count")


def _definition(body: str, names: frozenset[str]) -> Turned | None:
    m = re.match(rf"^{SUBJ} (?P<aux>is|are|was|were) (?P<pred>(?:a|an|the|one of the) .+)$", body)
    if not m:
        return None
    return Turned(f"What {m.group('aux')} {_subject(m, names)}?", _clip(m.group("pred")), "definition")


def _object(body: str, names: frozenset[str]) -> Turned | None:
    verbs = "|".join(sorted(OBJECT_VERBS, key=len, reverse=True))
    m = re.match(rf"^{SUBJ} (?P<verb>{verbs}) (?P<obj>.+)$", body)
    if not m:
        return None
    do, base = OBJECT_VERBS[m.group("verb")]
    if m.group("obj").split()[0].lower() in AUX_WORDS | {
        "by",
        "to",
        "on",
        "in",
        "at",
        "may",
        "might",
        "must",
    }:
        raise Skip("no_pattern")  # "X used by Y include ...": a participle, not the main verb
    subject = _subject(m, names)
    if do == "does" and is_plural(subject):
        do = "do"
    elif do == "do" and not is_plural(subject):
        raise Skip("no_pattern")  # "X use ..." with a singular X is not a clean sentence
    obj = _clip(m.group("obj"))
    purpose = re.match(r"^(?P<thing>.+?) (?P<goal>for [\w-]+(?: [\w-]+){0,2})$", obj)
    if purpose and word_count(f"What {do} {subject} {base} {purpose.group('goal')}?") <= MAX_QUESTION_WORDS:
        return Turned(
            f"What {do} {subject} {base} {purpose.group('goal')}?", purpose.group("thing"), "object_for"
        )
    return Turned(f"What {do} {subject} {base}?", obj, "object")


def _used_for(body: str, names: frozenset[str]) -> Turned | None:
    m = re.match(
        rf"^{SUBJ} (?P<aux>is|are|was|were) {_ADVERB}(?:widely |commonly |often )?used "
        r"(?P<prep>for|as|in) (?P<use>.+)$",
        body,
    )
    if not m:
        return None
    if m.group("prep") == "in" and m.group("use")[0].isdigit():
        raise Skip("no_pattern")  # "used in 1888": a date, not a place
    question = {
        "for": "What {aux} {subj} used for?",
        "as": "What {aux} {subj} used as?",
        "in": "Where {aux} {subj} used?",
    }[m.group("prep")]
    return Turned(
        question.format(aux=m.group("aux"), subj=_subject(m, names)), _clip(m.group("use")), "used_for"
    )


def _written_in(body: str, names: frozenset[str]) -> Turned | None:
    m = re.match(
        rf"^{SUBJ} (?P<aux>is|are|was|were) {_ADVERB}"
        r"(?P<verb>written in|implemented in|named after|known as) "
        r"(?P<what>.+)$",
        body,
    )
    if not m:
        return None
    question = f"What {m.group('aux')} {_subject(m, names)} {m.group('verb')}?"
    return Turned(question, _clip(m.group("what")), "written_in")


RULES: tuple[Callable[[str, frozenset[str]], Turned | None], ...] = (
    _appositive_date,
    _passive_by,
    _passive_date,
    _place,
    _count,
    _used_for,
    _written_in,
    _definition,
    _object,
)


def proper_nouns(text: str) -> frozenset[str]:
    """Capitalised words that are names: seen capitalised inside a sentence, or never seen in lower case."""
    capitalised = set(re.findall(r"\b[A-Z][\w'’-]*", text))
    inside = set(re.findall(r"(?<=[a-z0-9,;:] )([A-Z][\w'’-]*)", text))
    lower = set(re.findall(r"\b[a-z][\w'’-]*", text))
    return frozenset(word for word in capitalised if word in inside or word.lower() not in lower)
