"""English word forms from lemminflect (a maintained lemmatiser and inflector with its own data, no model to
download): the base verb of a gerund ("Making" -> "make", "Setting" -> "set"), whether a word is a verb's base
form, and a verb's third-person form ("enable" -> "enables")."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=8192)
def verb_lemmas(word: str) -> tuple[str, ...]:
    from lemminflect import getAllLemmas

    return tuple(getAllLemmas(word.lower()).get("VERB", ()))


@lru_cache(maxsize=8192)
def gerund_base(word: str) -> str | None:
    """The base verb of an -ing form ("Sharing" -> "share"), None when the word is not one."""
    from lemminflect import getInflection

    lower = word.lower()
    if not lower.endswith("ing") or len(lower) < 5 or not lower.isalpha():
        return None
    matching = [lemma for lemma in verb_lemmas(lower) if lower in getInflection(lemma, tag="VBG")]
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
def third_person(verb: str) -> str | None:
    """ "enable" -> "enables" (None when the word is no verb base)."""
    from lemminflect import getInflection

    if not is_base_verb(verb):
        return None
    forms = getInflection(verb.lower(), tag="VBZ")
    return forms[0] if forms else None


@lru_cache(maxsize=8192)
def is_third_person(word: str) -> bool:
    """Whether `word` is a verb's third-person singular ("controls", "enables"), not only a plural noun."""
    from lemminflect import getAllLemmas, getInflection

    lower = word.lower()
    lemmas = getAllLemmas(lower)
    if "NOUN" in lemmas and lemmas["NOUN"] != (lower,) and "VERB" not in lemmas:
        return False
    return any(lower in getInflection(lemma, tag="VBZ") for lemma in lemmas.get("VERB", ()))
