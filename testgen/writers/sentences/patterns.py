"""English declarative sentences turned into wh-questions whose answers are spans of the sentence: every rule
(`rules.RULES`) on each clause of the sentence, and a few whole-sentence shapes ("There are N X", "Name, the Y of Z,
..."), kept when they pass `_problem`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from ragtest_core.text import content_tokens, word_count
from testgen.filters import DEFAULT_MAX_WORDS, is_specific
from testgen.writers.base import Turned
from testgen.writers.english.clause import (
    DATE,
    Casing,
    Clause,
    Skip,
    clean_sentence,
    lettered,
    parse_clause,
    strip_discourse,
)
from testgen.writers.english.lexicon import AUX_BE, FORMS, MODALS, VAGUE_HEADS, words
from testgen.writers.sentences.rules import RULES
from testgen.writers.sentences.spans import COUNT, MAX_ANSWER_WORDS, clip

_PREPOSITIONS = words("in on at by for from with during since after before under")
#: "It is thought that S", "Genetic evidence suggests that S", "Studies have shown that S": S is asked about.
_REPORTED = re.compile(
    r"^(?:It (?:is|was|has been) (?:thought|believed|known|estimated|suggested|reported|assumed|likely) that"
    r"|[A-Z][\w-]*(?: [\w-]+){0,4} (?:suggests?|suggested|shows?|showed|revealed|reveals|indicates?|indicated"
    r"|confirms?|confirmed|found|finds|(?:has|have) (?:shown|indicated|suggested|found|revealed|confirmed)) that)"
    r" (?P<inner>[A-Za-z].+)$"
)
_RELATIVE_SUBJECT = re.compile(
    r"^(?P<subject>[A-Z][\w.'’+#-]*(?: [A-Z0-9][\w.'’+#-]*){0,3}), (?:which|who) (?P<relative>[a-z][^,;]{5,80}),"
    r" (?P<main>[a-z].+)$"
)
_FINITE = AUX_BE | MODALS | frozenset(["has", "have", "had", "that", "which", "who"])
_SECOND = re.compile(
    r"(?:^|(?P<comma>,)? )and (?:(?:also|then|later|often|usually|sometimes|eventually) )?"
    r"(?P<vp>(?P<verb>[a-z]+) .+)$"
)
T = TypeVar("T")
_NAME = r"(?P<name>[A-Z][\w.'’+#-]*(?: [A-Z0-9][\w.'’+#-]*){0,3})"


def turn_all(sentence: str, casing: Casing | None = None, max_words: int = DEFAULT_MAX_WORDS) -> list[Turned]:
    """Every clean question for `sentence` (best first); raises `Skip` when there is none."""
    casing = casing or Casing(sentence)
    reasons: list[str] = []
    candidates = _attempt(reasons, _whole_sentence, sentence, casing)
    for clause in _clauses(sentence, casing, reasons):
        for condition in _attempt(reasons, _condition, clause.fronted):
            for rule in RULES:
                for turned in _attempt(reasons, rule, clause, casing):
                    if clause.subject in turned.question and turned.rule not in ("identity", "creator"):
                        turned = replace(turned, subject=clause.subject)
                    if condition and not turned.question.startswith("When") and condition not in turned.question:
                        turned = replace(turned, question=f"{turned.question[:-1]} {condition}?")
                    candidates.append(turned)
    kept: list[Turned] = []
    for turned in candidates:
        reason = _problem(turned, sentence, max_words)
        if reason is None and all(t.question != turned.question for t in kept):
            kept.append(turned)
        elif reason is not None:
            reasons.append(reason)
    if not kept:
        raise Skip(reasons[0] if reasons else "no_pattern")
    return kept


def _clauses(sentence: str, casing: Casing, reasons: list[str]) -> list[Clause]:
    """The sentence's main clause, the clause a reporting frame introduces ("Studies have shown that X ..."), and
    a second predicate of the same subject ("X is omnivorous, and consumes Y" -> "X consumes Y")."""
    texts = [sentence]
    relative = _RELATIVE_SUBJECT.match(sentence.strip())
    if relative:  # "Oracle, which bought Sun in 2010, offers X." -> "Oracle offers X." and "Oracle bought Sun in 2010."
        texts = [
            f"{relative.group('subject')} {relative.group('main')}",
            f"{relative.group('subject')} {relative.group('relative')}.",
        ]
    reported = _REPORTED.match(sentence.strip())
    if reported:
        inner = reported.group("inner")
        texts.append(inner[0].upper() + inner[1:])
    clauses: list[Clause] = []
    for clause in (found for text in texts for found in _attempt(reasons, _parsed, text, casing)):
        second = _second_predicate(clause)
        clauses += [clause, *(replace(c, fronted=clause.fronted) for c in _attempt(reasons, _parsed, second, casing))]
    return clauses


def _parsed(text: str | None, casing: Casing) -> list[Clause]:
    return [parse_clause(text, casing)] if text is not None else []


def _attempt(reasons: list[str], make: Callable[..., list[T]], *args: Any) -> list[T]:
    """What `make(*args)` gives, or nothing when it raises `Skip` (its reason kept in `reasons`, in order)."""
    try:
        return make(*args)
    except Skip as skip:
        reasons.append(skip.reason)
        return []


def _second_predicate(clause: Clause) -> str | None:
    """ "The brown bear is omnivorous, and consumes Y" -> "The brown bear consumes Y." (None when there is none).

    After "and" comes a verb of the subject: an auxiliary or a third-person verb, or (after a comma) a past-tense
    verb; "has been tamed and trained" (a second participle) and "and their eggs" (a noun) are not."""
    words = clause.subject_as_written.lower().split()
    if "and" in words or "or" in words or any(FORMS.get(word) for word in words[1:]):
        return None  # "Boychenko announced the city was ...": a subject holding a verb was cut in the wrong place;
        # "The cost for re-opening and upgrading is ... and is ...": a long coordinated subject reads as two questions
    for match in _SECOND.finditer(clause.rest):
        if _FINITE & set(clause.rest[: match.start()].lower().split()):
            return None  # "X announced the city was ... and had ...": the second verb may be the inner clause's
        word = match.group("verb")
        form = FORMS.get(word)
        verb_like = word in AUX_BE | MODALS | {"has", "have", "had"} or (form is not None and form.tense == "pres3")
        if match.group("comma") and form is not None and form.tense in ("past", "pres") and not clause.passive:
            verb_like = form.tense == "past" or clause.plural
        if verb_like:
            return f"{clause.subject_as_written} {match.group('vp')}."
    return None


def _problem(turned: Turned, sentence: str, max_words: int) -> str | None:
    if word_count(turned.question) > max_words:
        return "question_too_long"
    if word_count(turned.answer) > MAX_ANSWER_WORDS:
        return "answer_too_long"
    if turned.answer not in sentence:
        return "answer_not_a_span"
    if not is_specific(turned.question):
        return "generic_question"
    answer_words = set(content_tokens(turned.answer))
    if answer_words and answer_words <= set(content_tokens(turned.question)):
        return "answer_in_question"
    return None


def _condition(fronted: tuple[str, str] | None) -> list[str | None]:
    """A fronted "In North America," is kept as a condition ("... in North America?"); others skip."""
    if fronted is None:
        return [None]
    prep, phrase = fronted
    if prep in ("In", "By", "On", "During", "Since") and (re.fullmatch(DATE, phrase) or phrase[:1].isupper()):
        return [f"{prep.lower()} {phrase}"]
    raise Skip("fronted_modifier")


_STATE_WORDS = frozenset(["left", "remaining", "living", "alive", "known", "found", "recorded", "described", "listed"])


def _there_question(noun_phrase: str, be: str, where: str | None) -> str:
    """ "There are 200,000 brown bears left in the world" -> "How many brown bears are left in the world?"."""
    words = noun_phrase.split()
    cut = next((i for i, w in enumerate(words) if i > 0 and w in _STATE_WORDS), None)
    place = f" {where}" if where else ""
    if cut is not None:
        return f"How many {' '.join(words[:cut])} {be} {' '.join(words[cut:])}{place}?"
    return f"How many {noun_phrase} {be} there{place}?"


def _whole_sentence(sentence: str, casing: Casing) -> list[Turned]:
    body = strip_discourse(clean_sentence(sentence))
    out: list[Turned] = []
    there = re.match(
        rf"^There (?P<be>are|were) {COUNT} (?P<np>[a-z][\w -]{{2,40}}?)(?: (?P<where>in [A-Z][^,]+))?$", body
    )
    if there and not re.search(r"\d|\band\b|\bor\b", there.group("np")):
        question = _there_question(there.group("np"), there.group("be"), there.group("where"))
        out.append(Turned(question, there.group("count").removesuffix(" of"), "there_are"))
    appositive = re.match(rf"^{_NAME}, (?P<desc>(?:the|a|an) [^,]+), (?P<rest>.+)$", body)
    if (
        appositive
        and casing.is_name(appositive.group("name"))
        and appositive.group("name").split()[0].lower() not in VAGUE_HEADS | _PREPOSITIONS
        and not lettered(appositive.group("name").split())
        and not re.search(r"\b(?:is|are|was|were|has|have|had)\b", appositive.group("desc"))
    ):
        name, desc = appositive.group("name"), clip(appositive.group("desc"))
        if not re.match(rf"^(?:first )?(?:released|introduced|launched|founded|published) (?:in|on) {DATE}", desc):
            out.append(Turned(f"What is {name}?", desc, "appositive"))
    dated_appositive = re.match(
        rf"^{_NAME}, (?:first )?(?P<verb>released|introduced|launched|founded|published|established|created)"
        rf" (?:in|on) (?P<date>{DATE}),",
        body,
    )
    if dated_appositive and casing.is_name(dated_appositive.group("name")):
        question = f"When was {dated_appositive.group('name')} {dated_appositive.group('verb')}?"
        out.append(Turned(question, dated_appositive.group("date"), "appositive_date"))
    return out
