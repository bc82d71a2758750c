"""How-to answers from a section's own statements: the first statement of the section that tells the reader what to
do for the task its heading names ("Sending JSON Encoded Data" -> "To send JSON data, pass ..."), and the statements
that look like instructions but answer no how-to question: pointers, list leads, continuations, troubleshooting,
one more thing beside the task, another way, or a task that undoes the heading's ("type `exit` to leave" under
"Entering environments"). What counts as an instruction is `testgen.writers.docs.instructions`.
"""

from __future__ import annotations

import itertools
import re

from testgen.structure import ChunkLine
from testgen.writers.docs.instructions import (
    EMPTY_WORDS,
    LETS_YOU,
    adds_to,
    instructs,
    main_clause,
    main_verb,
    same_task,
    stated_task,
)
from testgen.writers.docs.text import clean_sentence, split_prose
from testgen.writers.english.lexicon import LISTS, words
from testgen.writers.english.morphology import content_lemmas, lemma

OPENING_STATEMENTS = 4
TOPICAL_STATEMENTS = 8

#: Openings of a statement that answers no how-to question as its first step: a continuation ("However you can
#: also ...", "Conversely, ..."), what to do once the task is done ("Once the environment is active, you can run ..."),
#: a condition on what the statement before said ("If that is not the desired behavior, use a deep copy instead.") or
#: a reason given first ("Since multipart format is recursive, you can use ..."): it answers that statement.
_NOT_FIRST = re.compile(
    r"^(?:however|conversely|alternatively|otherwise|also|additionally|similarly|likewise|in addition|finally|"
    r"once|after|if (?:that|this|so|not)|in that case|since|because)\b",
    re.IGNORECASE,
)
#: What points a reader elsewhere for the answer.
_POINTER = re.compile(
    r"\b(?:below|above|the following|the link|for more (?:information|details)|visit|refer to|check out|"
    r"learn more)\b|^see\b",
    re.IGNORECASE,
)
#: A statement that introduces a list ("... by a growing number of organizations, including:").
_LIST_LEAD = re.compile(r"\b(?:including|include|includes|such as|like|e\.g\.)[.:]?$", re.IGNORECASE)
#: "You can also ...", "you will also have to ...": something beside the section's task.
_ALSO_YOU = re.compile(r"^you(?:'ll|’ll| can| will| would| may| should)? also\b", re.IGNORECASE)
#: "You can then ...", "you then ...": the next step after one the reader has not seen.
_THEN_YOU = re.compile(r"^you(?:'ll|’ll| can| will| would| may| should)? then\b", re.IGNORECASE)
#: An instruction for when something goes wrong ("... if the application does not start").
_TROUBLE = re.compile(r"\bif\b.*\b(?:not|n't|fails?|errors?)\b", re.IGNORECASE)

#: Words that name an instruction's means when its verb is the task's own ("Install Flask using pip").
_MEANS = re.compile(r"\b(?:with|using|via|through|by) (?!the same\b|the following\b)\w")
#: Content words beyond the task's own below which an instruction with the task's verb and no means says the task
#: again ("You can run Scrapy spiders in Jupyter notebooks." for "Running spiders in Jupyter notebooks").
_RESTATING_WORDS = 5


#: A statement about what older versions need ("... that work on Scrapy versions lower than 2.13, ...").
_VERSION_NOTE = re.compile(
    r"\bversions? (?:lower|older|earlier|prior|before|below|up to)\b|\b(?:before|prior to) (?:version )?\d+\.\d",
    re.IGNORECASE,
)


def opening_answer(
    body: list[ChunkLine],
    instructing: bool = True,
    topic_words: frozenset[str] = frozenset(),
    opening: bool = True,
    task_verb: str = "",
) -> str | None:
    """The answer (reference and span) from a section's opening chunk: the first of its first four prose statements
    that instructs (`instructing`), or one of the next four that instructs and names one of `topic_words` (the task's
    lemmas); else simply the first statement (a FAQ's "Why ...?"); None when there is none. A chunk that does not
    open its section answers only with an instruction naming one of `topic_words`, and an instruction whose verb is
    the task's own (`task_verb`) only when it names its means or says a good deal more than the task."""
    sentences = (s for line in body if line.kind == "prose" for s in split_prose(line.text))
    # not "Run an HTTP proxy locally:" + code: the task again; its means is in the code, never read
    said = (s for s in sentences if "`" in s or not s.rstrip().endswith(":") or lemma(main_verb(s)) not in topic_words)
    statements = list(itertools.islice(filter(None, map(clean_sentence, said)), TOPICAL_STATEMENTS))
    for number, statement in enumerate(statements):
        if not instructing:
            if _POINTER.search(statement) or _LIST_LEAD.search(statement):
                continue  # "Visit the link below ...", "... organizations, including:": the answer is elsewhere
            return statement
        if _NOT_FIRST.match(statement):
            continue
        main = main_clause(statement)
        verb = main_verb(statement)
        if _ALSO_YOU.match(main) and "`" not in statement and lemma(verb) not in topic_words:
            continue  # "You can also tell Nox to run ..." for "Configuring a session's virtualenv": one more thing
        if _THEN_YOU.match(main):
            continue  # "You can then call its `get_document()` method ...": a later step of something said before
        restates = not _MEANS.search(main) and len(content_lemmas(main) - topic_words - EMPTY_WORDS) < _RESTATING_WORDS
        if task_verb and lemma(verb) == task_verb and "`" not in statement and restates:
            continue  # "To start using the models you must first create the tables." for "Creating Tables"
        if _VERSION_NOTE.search(statement):
            continue  # "To write middlewares that work on versions lower than 2.13, define ...": an old version's way
        if _TROUBLE.search(main):
            continue  # "Check your logs for errors if the application does not start.": troubleshooting
        if re.search(r"\binstead\b", statement) and not (topic_words - EMPTY_WORDS) & content_lemmas(statement):
            continue  # "We recommend using the `paths` method instead." for "Using the PYTHONPATH ...": another way
        lets = LETS_YOU.search(main)
        if lets and topic_words and not same_task(content_lemmas(main[lets.start() :]), topic_words):
            continue  # "Workspace environments allow you to manage ...": what they are for, not how to configure them
        first = opening and number < OPENING_STATEMENTS
        if not instructs(statement) or not (first or bool(topic_words & content_lemmas(statement))):
            continue
        if topic_words and not adds_to(statement, topic_words):
            continue  # "you'll often want to use JSON encoding" for "send JSON encoded data": the task again
        own = stated_task(statement)  # "If you need to include non-file data fields, use ...": its own task
        if opposite_task(own[0] if own else purpose(statement), topic_words) or opposite_task(verb, topic_words):
            continue  # "You can type `exit` to leave the environment" for "Entering environments"
        if own is None or same_task(content_lemmas(own[0]), topic_words, strict=own[1]):
            return statement
    return None


_OPPOSITE_PAIRS = frozenset(frozenset(pair.split("/")) for pair in words(LISTS["answers.OPPOSITE_PAIRS"]))


def purpose(statement: str) -> str:
    """What a statement says its means is for: "You can type `exit` to leave the environment" -> "leave the
    environment" ("" when it says nothing)."""
    fronted = re.match(r"^(?:To|In order to) (?P<task>[a-z][^,]*?)(?:,| you\b)", statement)
    found = fronted or re.search(r"\bto (?P<task>[a-z]+\b.*)$", main_clause(statement).rstrip("."))
    return found.group("task") if found else ""


def opposite_task(task: str, topic_words: frozenset[str]) -> bool:
    """Whether a statement's own task undoes the heading's ("leave the environment" under "Entering
    environments")."""
    words = task.split()
    verb = lemma(words[0].lower()) if words else ""
    if verb in _UNDOING and not topic_words & _UNDOING:
        return True  # "To opt-out of using system certificates, ..." under "Using system certificate stores"
    return any(frozenset({verb, word}) in _OPPOSITE_PAIRS for word in topic_words)


#: Verbs of a task that undoes or prevents another.
_UNDOING = frozenset({"opt-out", "disable", "prevent", "avoid", "skip", "stop", "suppress", "turn"})
