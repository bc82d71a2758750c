"""The `option` strategy: an item naming an option, parameter, setting or environment variable (`timeout` - ...,
a definition-list term, a table row) gives "What does the `timeout` option control?", answered by a sentence made
from its description ("Whether X" -> "The `x` option controls whether X")."""

from __future__ import annotations

import re

from ragtest_core.text import word_count
from testgen.structure import ChunkLine
from testgen.writers.docs.descriptions import FINITE, PLURAL_PRESENT, DocFact, ordinary_word, run_together, says_more
from testgen.writers.docs.text import LIGHT_VERBS, markup_problem, split_prose
from testgen.writers.english.morphology import inflections, is_base_verb, is_third_person, parts_of_speech
from testgen.writers.english.tagger import tags

_SPEC_WORDS = {
    "environment variable": ("environment variable",),
    "parameter": ("parameter", "argument"),
    "setting": ("setting", "config"),
    "option": ("option", "flag"),
}


def option_fact(line: ChunkLine, heading: str, own_section: bool = False) -> DocFact | None:
    """ "`timeout`: The timeout configuration to use." -> "What does the `timeout` option control?".

    `own_section`: the name heads its own section ("### `reload`" under "Settings"), so an ordinary word names
    that one setting ("What does the `reload` setting control?"), not one of many things called so."""
    term = (line.term or "").strip()
    name = term.strip("`")
    if not name or " " in name or "(" in name or not re.fullmatch(r"[\w.-]+|--[\w-]+", name):
        return None
    if not (term.startswith("`") or "_" in name or name.startswith("--")):
        return None  # "Forwarding: the proxy makes ...": a bold word, not an option
    if re.fullmatch(r"[A-Z]\w*[a-z]\w*", name):
        return None  # `Connection`, `ClientSession`: a class, not an option or parameter
    if ordinary_word(name) and not own_section:
        return None  # `path`, `key`, `content`: many things in the docs have one; the question would be ambiguous
    description = line.text[len(term) :].lstrip(": ").strip() if line.text.startswith(term) else line.text
    first = split_prose(description)[:1]
    if not first or word_count(first[0]) < 3 or markup_problem(first[0]):
        return None
    noun = option_noun(name, heading)
    if noun is None or not says_more(first[0], name):
        return None
    reference = option_reference(f"The `{name}` {noun}", first[0].rstrip("."))
    if reference is None:
        return None
    return DocFact(f"What does the `{name}` {noun} control?", first[0].rstrip("."), reference, "option")


def option_noun(name: str, context: str) -> str | None:
    """What the item names, from the words around it (heading path and the chunk's prose): an environment
    variable, a parameter, a setting or an option; None when nothing says it is one (a list of packages)."""
    context = context.lower()
    for noun, cues in _SPEC_WORDS.items():
        if noun == "environment variable" and not re.fullmatch(r"[A-Z][A-Z0-9_]+", name):
            continue  # "`system-packages`" on a page about environments is no environment variable
        if any(cue in context for cue in cues):
            return noun
    return "option" if name.startswith("--") else None


def option_reference(subject: str, description: str) -> str | None:
    """A sentence saying what the option does, from its description: "Whether X" -> "S controls whether X";
    "The name of X" -> "S is the name of X"; "Enables X" -> "S enables X"; "Enable X" -> "S enables X"."""
    first, *others = description.split()
    lowered, rest = first.lower(), " ".join(others)
    if lowered in ("whether", "how", "which", "what"):
        return f"{subject} controls {lowered} {rest}."
    if lowered in ("a", "an", "the"):
        if run_together(description):
            return None  # "The actual factory to use ... can be set as a keyword argument": a sentence, not a noun
        head = re.split(r"\b(?:that|which|who|where|when|to)\b|,", description)[0]
        if set(tags(head)[1:]) & (FINITE | PLURAL_PRESENT):
            return None  # "The os._exit() function exits the process ...": a sentence, not what the option is
        if "()" in head and head.split()[-1].lower().rstrip(".") in _CALLABLE_HEADS:
            return None  # `current_date`: "The CURRENT_DATE() SQL function.": that function, not an option
        return f"{subject} is {lowered} {rest}."
    capitalised = first[:1].isupper() and first[1:].islower() and first.isalpha()
    if not capitalised or parts_of_speech(lowered) != {"VERB"}:
        return None  # "SOCKS proxy support", "Command line client support": a noun phrase, not a verb
    if lowered in LIGHT_VERBS or lowered.rstrip("s") in LIGHT_VERBS:
        return None  # "Imagine that the template supports updates ...": an example for the reader, not what it does
    if tags(description)[:2] == ("NP0", "NP0"):
        return None  # "Google Cloud Storage for feed exports": a name, though "google" is also a verb
    if is_third_person(first) and not is_base_verb(first):
        return f"{subject} {lowered} {rest}."
    forms = inflections(lowered, "VBZ") if is_base_verb(first) else ()  # "Enable X" -> "S enables X"
    return f"{subject} {forms[0]} {rest}." if forms else None


#: Head nouns of a description naming a callable ("The CURRENT_DATE() SQL function"): the item is that callable, not
#: an option (an option's value may be one: "a function that takes the emoji info ...").
_CALLABLE_HEADS = frozenset({"function", "class", "method", "exception", "decorator", "module", "type"})
