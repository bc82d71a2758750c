"""Which headings name a task, and the task as a verb phrase: "Sending JSON Encoded Data" -> "send JSON encoded
data", "Install Flask" -> "install Flask"; "Template Inheritance", "Debug Mode", "Networking layer" and
"Application Dispatching" name concepts and give none.

The heading is tagged as a sentence (`testgen.writers.english.tagger`). It is a task when it opens with an
imperative (a base verb tagged as one, or one that can be a verb before an article: "Upload a file") or a gerund
(tagged as one, or an -ing form before a plural or number-neutral object: "Uploading Files", "Building URLs"; not
before a singular count noun: "Caching Decorator"). Advice, several tasks and headings with code give none.
"""

from __future__ import annotations

import re

from testgen.writers.docs.specific import task_needs_context
from testgen.writers.docs.text import LIGHT_VERBS, markup_problem
from testgen.writers.english.clause import Casing
from testgen.writers.english.morphology import gerund_base, is_base_verb, parts_of_speech
from testgen.writers.english.tagger import BASE_VERB, DETERMINER, tag_words

MAX_TASK_WORDS = 8
_HOW_TO = re.compile(r"^how (?:to|do (?:I|you)|can (?:I|you)) (?=[a-z])", re.IGNORECASE)
#: A parenthetical aside at a heading's end: a remark on the task, not part of it.
_ASIDE = re.compile(r"\s*\([^()`]*\)\s*$")
_SEVERAL = frozenset({"and", "or", "vs", "versus", "of", "&"})
#: Tags of an object that a bare -ing form can take as a task ("Uploading Files", "Building URLs", "... Data").
_TASK_OBJECT = frozenset({"NN2", "NP0", "NN0", "VVZ"})
#: Function words written in title case inside a heading ("Register A User", "Run The Application").
_FUNCTION_TAGS = frozenset({"AT0", "DPS", "DT0", "PRP", "PRF", "CJC", "TO0"})
#: Verbs of advice: "Prefer canonical imports", "Avoid forward references" give a guideline, not a task one asks how
#: to do ("How do you prefer canonical imports?").
_ADVISING = frozenset({"prefer", "avoid", "consider", "favor", "favour", "beware", "remember", "welcome"})


def task_phrase(heading: str, casing: Casing) -> str | None:
    """The task a heading names, as a verb phrase in sentence case; None when it names no task."""
    # "How to install Flask" -> "install Flask"; "Using a virtual environment (recommended)": the aside dropped
    heading = _ASIDE.sub("", _HOW_TO.sub("", heading))
    words = heading.split(": ")[0].strip().rstrip(":.!").split()  # "Erase data: coverage erase" -> "Erase data"
    if words and words[0].islower():
        words[0] = words[0].capitalize()
    if len(words) < 2 or len(words) > MAX_TASK_WORDS or "`" in heading or markup_problem(heading):
        return None
    if words[1].lower() in _SEVERAL or any(word.endswith(",") for word in words[:-1]):
        return None
    if any(word.lower() in ("and", "or") for word in words[1:3]) and gerund_base(words[-1]):
        return None  # "Accessing and Modifying the Session": two tasks
    joined = [n for n, word in enumerate(words[:-1]) if word.lower() in ("and", "or")]
    if any(is_base_verb(words[n + 1].lower()) and words[n + 2 :] for n in joined):
        return None  # "Cancel points and schedule points": two verb phrases (or a noun list read as one)
    tagged = tag_words(tuple(words))
    base = _task_verb(words, tagged)
    if base is None or base in LIGHT_VERBS or base in _ADVISING:
        return None  # "Working with Blueprints", "See also": nothing in particular to do; "Avoid ...": advice
    rest = [recase(word, tag, casing) for word, tag in zip(words[1:], tagged[1:], strict=True)]
    task = " ".join([base, *rest])
    return None if task_needs_context(task) else task


def _task_verb(words: list[str], tagged: tuple[str, ...]) -> str | None:
    first = words[0]
    later_verb_forms = any(gerund_base(w) or (w.lower().endswith("ed") and len(w) > 4) for w in words[1:])
    base = gerund_base(first)
    if base is not None:
        if tagged[0] == "AJ0" and "ADJ" in parts_of_speech(first.lower()):
            return None  # "Missing imports", "Existing projects": a participle describing the noun
        # read as a noun or adjective: a task only when what follows is its object, not the noun it modifies
        return base if tagged[0] == "VVG" or (tagged[-1] in _TASK_OBJECT and not later_verb_forms) else None
    if not first[:1].isupper() or not is_base_verb(first) or later_verb_forms:
        return None
    imperative = tagged[0] in BASE_VERB and not (len(words) == 2 and tagged[1] == "AV0")
    return first.lower() if imperative or tagged[1] in DETERMINER else None


def recase(word: str, tag: str, casing: Casing) -> str:
    """A title-case heading word as it reads inside a sentence: function words lower case ("A", "The"), other
    words lower case unless the text capitalises them inside its sentences more often than not ("Encoded" ->
    "encoded"; "Python" and "JSON" stay)."""
    if tag in _FUNCTION_TAGS and word.isalpha() and word[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        return word.lower()
    if word[:1].isupper() and word[1:].islower() and word.isalpha():
        lowered = word.lower()
        if casing.inner_capital[lowered] <= casing.lower[lowered]:
            return lowered
    return word
