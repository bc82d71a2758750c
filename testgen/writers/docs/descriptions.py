"""What the documentation strategies make (`DocFact`), and the checks on an item's description that the option and
glossary strategies share: whether it runs two sentences together, opens with a data type, says more than its name,
and whether a name is an ordinary word."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragtest_core.text import STOPWORDS
from testgen.writers.english.lexicon import LISTS, words
from testgen.writers.english.morphology import parts_of_speech
from testgen.writers.english.tagger import tags


@dataclass(frozen=True)
class DocFact:
    question: str
    span: str
    reference: str
    strategy: str


def run_together(description: str) -> bool:
    """Whether a noun-phrase description has a main verb of its own before any relative clause ("The actual factory
    to use for generating the dict can be set as a keyword argument"): two sentences run together."""
    main = re.split(r"\b(?:that|which|who|whose|where|when|if)\b|,", description)[0]
    return re.search(r"\b(?:can|could|should|must|will|may) be\b", main) is not None


_TYPES = words(LISTS["descriptions.TYPES"])
FINITE = frozenset({"VVZ", "VVD", "VBZ", "VBD", "VHZ", "VDZ", "VM0"})
#: A present-tense verb after a plural subject ("The execv family of functions end the current program").
PLURAL_PRESENT = frozenset({"VVB", "VBB", "VHB", "VDB"})
_SAYING = words("give giving specify specifies indicate indicating denote denoting define defines")


def data_type(description: str) -> bool:
    """Whether the first noun of a description, after its article and adjectives, is a data type."""
    for word in re.findall(r"[A-Za-z][\w-]*", description.lower())[1:4]:
        if word in _TYPES:
            return True
        if not set(tags(word)) & {"AJ0", "AJC", "AJS", "CRD", "ORD"}:
            return False
    return False


def says_more(description: str, name: str) -> bool:
    """Whether an option's description says more than its name and type ("`media_type` - A string giving the media
    type" says nothing)."""
    own = set(re.split(r"[_.-]", name.lower()))
    found = {w for w in re.findall(r"[a-z][\w-]*", description.lower()) if w not in STOPWORDS}
    return bool(found - own - _TYPES - _SAYING)


def ordinary_word(name: str) -> bool:
    """Whether a name is an ordinary English word (`path`, `key`, `domain`), a built-in type or a generic
    parameter (`str`, `kwargs`): as an option or term it names no one thing in the docs. `follow_symlink`,
    `samesite`, `httpcore` and `DEBUG` are names."""
    if name in _TYPE_NAMES:
        return True  # a parameter table's type column ("`str`: the text to convert"), not a name
    return name.isalpha() and name.islower() and (bool(parts_of_speech(name)) or name in STOPWORDS)


#: Built-in type names of common languages: a table listing them lists types, not options.
_TYPE_NAMES = frozenset(
    {"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "None", "object"}
    | {"args", "kwargs", "arg", "kwarg", "self", "cls", "obj", "func", "fn", "cb"}  # parameters of many functions
)
