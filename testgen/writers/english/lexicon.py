"""English word lists for the offline writer (`lexicon.txt`): small closed classes, and the verbs with their forms.

The clause parser finds a sentence's main verb by looking its words up in `FORMS` (`testgen.writers.english.clause`),
so the lists name the verbs that encyclopedic text uses for facts worth asking about, grouped by the question they
support; their inflected forms come from lemminflect (`morphology.inflections`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files

from ragtest_core.text import words
from testgen.writers.english.morphology import inflections


def pairs(text: str) -> dict[str, str]:
    """ "a:b c:d" -> {"a": "b", "c": "d"}, in order."""
    return {key: value for key, _, value in (pair.partition(":") for pair in text.split())}


def phrases(text: str) -> tuple[str, ...]:
    """Phrases separated by "|" (line breaks and indentation around them ignored), in order."""
    return tuple(phrase.strip() for phrase in text.split("|"))


def _read_lists() -> dict[str, str]:
    """The lists of `lexicon.txt` by name: a paragraph a list, "NAME: its words ..." ("#" lines say what it is for)."""
    text = files(__package__).joinpath("lexicon.txt").read_text(encoding="utf-8")
    lists = (
        " ".join(ln for ln in par.splitlines() if not ln.startswith("#")).partition(":") for par in text.split("\n\n")
    )
    return {name.strip(): value for name, _, value in lists if value}


LISTS = _read_lists()
PRONOUNS = words(LISTS["PRONOUNS"])
DEICTIC = words(LISTS["DEICTIC"])
DETERMINERS = words(LISTS["DETERMINERS"])
JOINING_WORDS = words(LISTS["JOINING_WORDS"])
POSSESSIVES = words(LISTS["POSSESSIVES"])
AUX_BE = words(LISTS["AUX_BE"])
MODALS = words(LISTS["MODALS"])
VAGUE_HEADS = words(LISTS["VAGUE_HEADS"])
DISCOURSE = phrases(LISTS["DISCOURSE"])
GENERIC_NOUNS = words(LISTS["GENERIC_NOUNS"])
AGENT_NOUNS = pairs(LISTS["AGENT_NOUNS"])
PERSON_NOUNS = words(LISTS["PERSON_NOUNS"])

CREATION = words(LISTS["CREATION"])
DATED = CREATION | words(LISTS["DATED"])
CONTENT = words(LISTS["CONTENT"])
COMPOSITION = words(LISTS["COMPOSITION"])
PURPOSE = words(LISTS["PURPOSE"])
PLACE = words(LISTS["PLACE"])
#: measure verbs with their question: "weigh 300 kg" -> "How much ... weigh?"
MEASURE = {"weigh": "How much", "live": "How long", "last": "How long", "measure": "How long", "grow": "How big"}
PHRASAL = pairs(LISTS["PHRASAL"])
PLACE_PARTICIPLES = words(LISTS["PLACE_PARTICIPLES"])
AS_PARTICIPLES = words(LISTS["AS_PARTICIPLES"])

NOT_ATTRIBUTES = words(LISTS["NOT_ATTRIBUTES"])
DEPICTION_PARTICIPLES = words(LISTS["DEPICTION_PARTICIPLES"])
FOR_PARTICIPLES = words(LISTS["FOR_PARTICIPLES"])
NAMING_PARTICIPLES = words(LISTS["NAMING_PARTICIPLES"])
OPINION_PARTICIPLES = words(LISTS["OPINION_PARTICIPLES"])

OTHER = words(LISTS["OTHER"])
ALL_VERBS = CREATION | DATED | CONTENT | COMPOSITION | PURPOSE | PLACE | OTHER | frozenset(MEASURE) | frozenset(PHRASAL)
PREP_ADJECTIVES = words(LISTS["PREP_ADJECTIVES"])


@dataclass(frozen=True)
class VerbForm:
    """One inflected form: its base and what it is ('pres3', 'pres', 'past', 'part' or 'past_part')."""

    base: str
    tense: str
    text: str = ""  # the form as written, for participles the lexicon does not know (base "")


def inflect(base: str) -> tuple[str, str, str]:
    """(third person, past, participle) of an English verb, as lemminflect writes them ("keep" -> keeps, kept,
    kept)."""
    return inflections(base, "VBZ")[0], inflections(base, "VBD")[0], inflections(base, "VBN")[0]


def _index() -> dict[str, VerbForm]:
    forms: dict[str, VerbForm] = {}
    for base in sorted(ALL_VERBS):
        third, past, participle = inflect(base)
        forms.setdefault(base, VerbForm(base, "pres"))
        forms[third] = VerbForm(base, "pres3")
        forms[past] = VerbForm(base, "past_part" if past == participle else "past")
        forms.setdefault(participle, VerbForm(base, "part"))
    forms["born"] = VerbForm("bear", "part")  # "bear" itself is too often the animal to be a verb form
    return forms


FORMS: dict[str, VerbForm] = _index()
