"""English word forms and lemmas from lemminflect (a maintained lemmatiser and inflector with its own data, no model
to download), the only place the writers ask it: which parts of speech a word can be, its lemmas, the base verb of
a gerund ("Making" -> "make", "Setting" -> "set"), whether a word is a verb's base form or third person, and a
verb's third-person form ("enable" -> "enables")."""

from __future__ import annotations

import re
from functools import lru_cache

from ragtest_core.text import STOPWORDS


@lru_cache(maxsize=65536)
def _lemma_table(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """lemminflect's lemmas of a word by part of speech ("NOUN", "VERB", "ADJ", "ADV", ...), in its order."""
    from lemminflect import getAllLemmas

    return tuple((kind, tuple(found)) for kind, found in getAllLemmas(word).items())


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech lemminflect knows `word` as (empty for a word it does not know: a name, code)."""
    return frozenset(kind for kind, _ in _lemma_table(word))


@lru_cache(maxsize=65536)
def lemmas(word: str) -> frozenset[str]:
    """A word and every lemma lemminflect gives it, whatever the part of speech ("echoing" -> echoing, echo;
    "names" -> names, name)."""
    return frozenset({word, *(lemma for _, found in _lemma_table(word) for lemma in found)})


def lemma(word: str) -> str:
    """A content word's lemma (noun, verb or adjective first); "" for a function word ("across"); a word lemminflect
    does not know without a plural "s" ("URLs" -> "URL")."""
    table = dict(_lemma_table(word))
    found = [table[kind][0] for kind in ("NOUN", "VERB", "ADJ") if kind in table]
    if table:
        return found[0] if found else ""  # "": an adverb, preposition or other function word
    return word[:-1] if word.endswith("s") and len(word) > 3 and not word.endswith("ss") else word


def content_lemmas(text: str) -> set[str]:
    """The lemmas of a text's content words (nouns, verbs, adjectives; words lemminflect does not know, such as
    "URLs", singular), lower case."""
    return {lemma(word) for word in re.findall(r"[A-Za-z][\w-]+", text.lower()) if word not in STOPWORDS} - {""}


def verb_lemmas(word: str) -> tuple[str, ...]:
    """The verbs a word is a form of ("made" -> make), lower-cased first."""
    return dict(_lemma_table(word.lower())).get("VERB", ())


@lru_cache(maxsize=8192)
def inflections(base: str, tag: str) -> tuple[str, ...]:
    """The forms of `base` with a Penn tag ("VBZ", "VBD", "VBN", "VBG"), commonest first ("keep", "VBD" -> kept)."""
    from lemminflect import getInflection

    return tuple(getInflection(base, tag=tag))


@lru_cache(maxsize=8192)
def gerund_base(word: str) -> str | None:
    """The base verb of an -ing form ("Sharing" -> "share"), None when the word is not one."""
    lower = word.lower()
    if not lower.endswith("ing") or len(lower) < 5 or not lower.isalpha():
        return None
    matching = [lemma for lemma in verb_lemmas(lower) if lower in inflections(lemma, "VBG")]
    if not matching:
        return None
    stem = lower[:-3]
    if stem.endswith("ll") and stem in matching:
        return stem  # "installing": "install", not the British "instal" ("fulfill", "enroll" likewise)
    # "routing": "route", not "rout"; "putting": "put", not "putt" (a silent e kept, a doubled consonant not)
    return min(matching, key=lambda lemma: (not lemma.endswith("e"), len(lemma)))


@lru_cache(maxsize=8192)
def is_base_verb(word: str) -> bool:
    """Whether `word` is a verb's base form ("declare", "use", "upload")."""
    lower = word.lower()
    return lower.isalpha() and lower in verb_lemmas(lower)


@lru_cache(maxsize=8192)
def is_third_person(word: str) -> bool:
    """Whether `word` is a verb's third-person singular ("controls", "enables"), not only a plural noun."""
    lower = word.lower()
    table = dict(_lemma_table(lower))
    if "NOUN" in table and table["NOUN"] != (lower,) and "VERB" not in table:
        return False
    return any(lower in inflections(lemma, "VBZ") for lemma in table.get("VERB", ()))
