"""Checks of a turned English question against the sentence it was turned from, and of its answer.

`grammar_problem` reads the question's shape (a wh-word first, a subject that starts like a noun phrase and is the
sentence's as written, agreement, a base verb after do-support) and finds every word of the question in the source
sentence, up to inflection, apart from the words the rules add (question words, auxiliaries, agent nouns ...).

`definition_problem` checks that the answer to "What is X?" defines X: a noun phrase naming a class ("a
high-level programming language", "the reference implementation of Python"), not a ranking or another fact about
X ("the most variable in size of modern bears", "the first and most convincing successful case of ...") and not a
description that needs its context ("an alternative software platform", "a related field of study").

Both return None when the question passes, else a short reason (counted in the writer's stats).
"""

from __future__ import annotations

import itertools
import re

from ragtest_core.text import STOPWORDS, tokenize
from testgen.writers.english.clause import is_plural
from testgen.writers.english.lexicon import AGENT_NOUNS, AUX_BE, FORMS, GENERIC_NOUNS, LISTS, MODALS, inflect, words
from testgen.writers.english.morphology import is_base_verb, is_third_person
from testgen.writers.english.tagger import tag_words, tags

WH_WORDS = frozenset(["what", "who", "whom", "whose", "when", "where", "which", "why", "how"])
_AUXILIARIES = AUX_BE | MODALS | frozenset(["do", "does", "did", "has", "have", "had"])
_NOT_SUBJECT_START = words(LISTS["grammar.NOT_SUBJECT_START"]) | _AUXILIARIES
_RULE_WORDS = words(LISTS["grammar.RULE_WORDS"]) | frozenset(AGENT_NOUNS.values())
#: Superlatives, rankings and evaluations: a sentence about X's rank, not what X is.
_RANKING = re.compile(
    r"^(?:the |one of the |among the )?(?:\w+est|most|least|first|last|only|best|worst|second|third|largest|"
    r"biggest|greatest|main|leading|top|earliest|latest|oldest|newest)\b"
)
_RELATIVE = words(LISTS["grammar.RELATIVE"])
_EVALUATIVE = words(LISTS["grammar.EVALUATIVE"])
_VAGUE_HEADS = words(LISTS["grammar.VAGUE_HEADS"])
#: Heads that relate X to something else instead of saying what X is.
_RELATIONAL = words("result cause consequence effect reason source outcome product basis origin opposite counterpart")
_HEAD_END = re.compile(
    r" (?:of|for|in|on|at|to|that|which|who|with|from|by|used|designed|based|developed|made|introduced|added|released|"
    r"shipped|available|included|provided)\b"
)  # "a beta feature introduced in 25.0": the head is "feature"


def definition_problem(description: str) -> str | None:
    """None when `description` defines its subject (see the module docstring), else why not."""
    text = description.strip().lower()
    if not re.match(r"^(?:a|an|the)\s", text):
        return "not_a_noun_phrase"
    if _RANKING.match(text) or re.match(r"^(?:a|an|the) (?:\w+ )?(?:\w+est|most|least)\b", text):
        return "ranking"
    words = tokenize(text)
    if any(word in _RELATIVE for word in words[:6]):
        return "needs_context"
    if any(word in _EVALUATIVE for word in words[:3]):
        return "evaluation"
    parts = _HEAD_END.split(" " + text, maxsplit=1)
    head_phrase = parts[0].split()
    head = head_phrase[-1] if head_phrase else ""
    specified = len(parts) > 1 and f" {head} of " in f" {text} "  # "a type of bear", "a way of coping with stress"
    if (head in _VAGUE_HEADS and not specified) or head in STOPWORDS or len(head_phrase) < 2:
        return "vague_head"
    if head in _RELATIONAL:  # "the result of ...": a cause or effect of X, not what X is
        return "relation"
    return None


#: Answers that name no particular thing: "in various applications", "many platforms".
_VAGUE_ANSWER = re.compile(
    r"^(?:in |on |for |to |there (?:are|is) )?(?:various|many|several|some|numerous|different|other|certain)\b|"
    r"^(?:in )?(?:two|three|four|five|a few) (?:\w+ )?(?:places|locations)$"
)  # "in two distinct places": which ones?


#: Head nouns that name no particular thing on their own ("a powerful mechanism", "exceptions", "support").
_GENERIC_HEADS = GENERIC_NOUNS | words("exception exceptions error errors")
_ARTICLES = words("a an the")


def vague_answer(span: str) -> bool:
    """Whether a short answer names nothing in particular ("various applications", "many platforms", "a
    powerful mechanism", "a simple but powerful interface": a generic head noun with nothing but an article and
    adjectives before it, as the tagger reads them)."""
    lowered = span.lower().rstrip(".")
    tokens = lowered.split()
    if bool(_VAGUE_ANSWER.match(lowered)) and (len(tokens) <= 4 or lowered.startswith("there ")):
        return True  # "various applications"; "There are several events which ...": which ones?
    if not 1 <= len(tokens) <= 5 or tokens[-1] not in _GENERIC_HEADS:
        return False
    return all(
        t in _ARTICLES or t in ("and", "but") or tag in ("AJ0", "AJS", "AJC")
        for t, tag in zip(tokens[:-1], tag_words(tuple(tokens)), strict=False)
    )


def grammar_problem(question: str, sentence: str, subject: str = "") -> str | None:
    """None when the turned `question` reads as a well-formed question from `sentence`, else the first problem."""
    if not question.endswith("?") or re.search(r"\s[?,]|,\?|\s{2,}", question):
        return "punctuation"
    words = question[:-1].split()
    if not words or words[0].lower() not in WH_WORDS:
        return "no_wh_word"
    lowered = [w.lower().strip(",") for w in words]
    if re.search(r"\b(?:allows?|enables?|lets?|permits?) to\b", question[:-1].lower()):
        return "verb_form"  # "What does including an extension allow to execute ...?": whom does it allow?
    if any(a == b and a not in ("had", "that") for a, b in itertools.pairwise(lowered)):
        return "repeated_word"
    second, following = [*lowered, "", ""][1:3]
    if lowered[0] in ("what", "who") and _plural_verb(second) and following not in _AUXILIARIES | {"of"}:
        return "agreement"  # "What create instances of X?": "what" asks for one thing
    if subject and (problem := _subject_problem(question, sentence, subject)) is not None:
        return problem
    source = tokenize(sentence)
    missing = [t for t in tokenize(question) if not _in_source(t, source)]
    return f"word_not_in_source:{missing[0]}" if missing else None


def _subject_problem(question: str, sentence: str, subject: str) -> str | None:
    words, tagged = subject.split(), tags(subject)
    first = words[0].lower()
    # "What did Specifies the minimum require ...?": a description with no subject (a verb's third person, as tagged)
    verb_first = words[0][:1].isupper() and tagged[0] == "VVZ" and is_third_person(first)
    if first in _NOT_SUBJECT_START or first.endswith("ly") or verb_first:
        return "subject_start"
    if subject.lower() not in re.sub(r"\s+", " ", sentence).lower():
        return "subject_not_in_source"
    if len(words) > 2 and set(tagged[1:]) & _FINITE_TAGS:
        return "verb_in_subject"  # "What do Flask tries to help developers catch?": the verb read as the subject's
    before, _, after = question.partition(f" {subject}")
    aux = before.split()[-1].lower() if before.split() else ""
    if aux in ("does", "is", "was", "has") and is_plural(subject):
        return "agreement"
    form = FORMS.get(after.split()[0].strip("?,").lower() if after.split() else "")
    if aux in ("do", "does", "did") and form is not None and form.tense in ("pres3", "past") and form.base:
        return "verb_form"
    return None


#: Tags of a present-tense finite verb or a modal (C5): none belongs inside a subject.
_FINITE_TAGS = frozenset({"VVZ", "VBZ", "VHZ", "VDZ", "VM0"})


def _plural_verb(word: str) -> bool:
    """A verb's present plural form ("create"), not an auxiliary ("do", "can") and not its third person."""
    form = FORMS.get(word)
    return word not in _AUXILIARIES and (form is None or form.tense == "pres") and is_base_verb(word)


def _in_source(token: str, source: list[str]) -> bool:
    """The question's token, or an inflection of it, occurs in the source tokens (or is a word the rules add)."""
    if token in STOPWORDS or token in WH_WORDS or token in _RULE_WORDS or token in source:
        return True
    if any(token[:6] == word[:6] for word in source if len(token) >= 5 and len(word) >= 5):
        return True
    if token.rstrip("s") in source or f"{token}s" in source or f"{token}es" in source:
        return True
    form = FORMS.get(token)
    return form is not None and bool(form.base) and any(f in source for f in (form.base, *inflect(form.base)))
