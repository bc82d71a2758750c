"""Yes/no questions about a product's defaults, from documentation sentences that state one ("File uploads are
streaming by default, meaning ..." -> "Are file uploads streaming by default?"): what a product does when nothing
is configured is among the first things its users ask, and the sentence answers it either way.

The main clause (`_main_clause`) is read with the part-of-speech tagger: its subject is what comes before the first
finite verb ("does", "is", "will", a present-tense verb), and must name something on its own (`specific.anchored`;
no pronoun, no "you"); the question keeps the rest of the clause up to "by default" or the clause's end. Sentences
whose clause is too long for a question, or that hedge ("may", "can"), give none.
"""

from __future__ import annotations

import re

from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.specific import anchored
from testgen.writers.docs.text import clean_sentence, markup_problem, mask_code
from testgen.writers.english.clause import Casing
from testgen.writers.english.lexicon import JOINING_WORDS, words
from testgen.writers.english.morphology import is_base_verb, is_third_person, verb_lemmas
from testgen.writers.english.tagger import tag_words

_BY_DEFAULT = re.compile(r"\bby default\b,?", re.IGNORECASE)
#: A fronted phrase before the main clause: "Unlike `requests`, ...", "In Flask, ...", "By default, ...".
_FRONTED = re.compile(r"^(?:Unlike|Like|In|For|With|On|Since|As of|Out of the box)\b[^,]{1,60}, ")
_CLAUSE_END = re.compile(r",|;|\s(?:which|meaning|because|so that|unless|when|if|but|and then|while)\s")
_PRONOUNS = frozenset({"it", "this", "that", "these", "those", "they", "you", "we", "there", "he", "she", "one"})
#: Words that open a subordinate clause or join a sentence to the one before: no subject starts with them ("Because
#: SQLite's `LIKE` operation is case-insensitive by default, ...": the default is the reason, not the statement).
_SUBORDINATORS = JOINING_WORDS | words("if when while as once")
_DO = {"VDZ": "Does", "VDB": "Do"}
_BE = {"VBZ": "Is", "VBB": "Are"}
_ARTICLES = frozenset({"the", "a", "an", "every", "each", "all"})
#: What follows "is" / "are" in a stated default: a participle or adjective ("used", "streaming", "enabled").
_STATE = frozenset({"VVN", "VVG", "AJ0", "VVD"})
_FINITE_LATER = frozenset({"is", "are", "was", "were", "does", "do", "will"})
_OPEN_END = frozenset({"to", "a", "an", "the", "of", "for", "in", "on", "with", "and", "or", "even"})


def default_fact(sentence: str, heading: str, casing: Casing, max_words: int) -> DocFact | None:
    """The yes/no question for a sentence stating a default (its answer the main clause, its reference the
    sentence), or None."""
    reference = clean_sentence(sentence)
    if reference is None or len(_BY_DEFAULT.findall(reference)) != 1 or markup_problem(reference):
        return None
    clause = _main_clause(reference.rstrip(".!"))
    if clause is None:
        return None
    masked, restore = mask_code(clause)
    tokens = masked.split()
    found = _finite(tokens, tag_words(tuple(tokens)))
    if found is None:
        return None
    at, opening, rest = found
    subject = tokens[:at]
    if not 1 <= len(subject) <= 5 or any(word.lower() in _PRONOUNS | {"not"} for word in subject):
        return None
    # "Is a suffix required by default?": which suffix?; "By default, if Material for MkDocs is used, ...": a condition
    if (len(subject) == 2 and subject[0].lower() in ("a", "an")) or subject[0].lower() in _SUBORDINATORS:
        return None
    if not any(re.search(r"[A-Za-z]{2}", word) for word in subject):
        return None  # "By default 200 is assumed": 200 what?
    rest = [word for word in rest if word.lower() not in ("also", "still", "now")]
    if any("default" in word.lower() for word in rest):
        return None  # "Is `asyncio` used with default options by default?"
    if not rest or rest[0].lower() in ("no", "only", "also", "to") or rest[-1].lower() in _OPEN_END:
        return None
    first = subject[0].lower() if subject[0].lower() in _ARTICLES else casing.first_word(*subject[:2])
    question = f"{opening} {restore(' '.join([first, *subject[1:]]))} {restore(' '.join(rest))} by default?"
    named = lambda word: casing.inner_capital[word.lower()] > 0  # noqa: E731
    if len(question.split()) > max_words or not anchored(restore(" ".join(subject)), sentence, heading, named=named):
        return None
    return DocFact(question, clause, reference, "default")


def _main_clause(text: str) -> str | None:
    """The clause stating the default, with "by default" taken out: "By default, the GET method is used" -> "the
    GET method is used"; "Unlike `requests`, HTTPX does not follow redirects by default" -> "HTTPX does not follow
    redirects"; None when it is not in the main clause."""
    text = _FRONTED.sub("", re.sub(r"^By default,? ", "", text))
    end = _CLAUSE_END.search(text)
    clause = text[: end.start()] if end else text
    if not _BY_DEFAULT.search(clause) and _BY_DEFAULT.search(text):
        return None  # "by default" in a later clause
    parts = _BY_DEFAULT.split(clause, maxsplit=1)
    if len(parts) > 1 and parts[1].strip(" .!") and not parts[1].lstrip().startswith(("(", ":")):
        return None  # "Copier will copy by default `v1.0.0` unless ...": the question would lose the object
    clause = parts[0].strip()
    return clause if len(clause.split()) >= 3 else None


def _finite(tokens: list[str], tagged: tuple[str, ...]) -> tuple[int, str, list[str]] | None:
    """(where the clause's finite verb is, the question's opening word, the rest of the question after the
    subject) or None: "HTTPX does not follow redirects" -> (1, "Does", [follow, redirects]); "the GET method is
    used" -> (3, "Is", [used]); "httpx will verify HTTPS connections" -> (1, "Does", [verify, ...]); "HTTPX
    enforces timeouts everywhere" -> (1, "Does", [enforce, ...])."""
    for at in range(1, len(tokens)):
        tag, lowered = tagged[at], tokens[at].lower()
        after = [word for word in tokens[at + 1 :] if word.lower() != "not"]
        before = tokens[at - 1]
        plural = tagged[at - 1] == "NN2" and before.endswith("s") and not before.endswith(("'s", "’s"))  # not "Nox"
        if tag == "VM0" and lowered == "will" and after and after[0].lower() == "be":  # "will be returned"
            return (at, "Are" if plural else "Is", after[1:]) if len(after) > 1 else None
        if tag in _DO or (tag == "VM0" and lowered == "will"):
            if not after or not is_base_verb(after[0]):
                return None
            return at, _DO.get(tag, "Do" if plural else "Does"), [after[0].lower(), *after[1:]]
        if tag in _BE:  # "is used", "are streaming", "is enabled": a state; "is `FLASK_`" asks what, not whether
            state = [t for w, t in zip(tokens[at + 1 :], tagged[at + 1 :], strict=True) if w.lower() != "not"][:1]
            return (at, _BE[tag], after) if state and state[0] in _STATE else None
        if tag in ("VVZ", "VVB") and any(word.lower() in _FINITE_LATER for word in after):
            continue  # "Falcon's built-in CORS support is disabled": "built-in" is no verb; "is" is
        if tag == "VVZ" or (tag == "VVB" and plural):
            bases = (lowered,) if tag == "VVB" else verb_lemmas(lowered) if is_third_person(lowered) else ()
            return (at, "Does" if tag == "VVZ" else "Do", [bases[0], *after]) if bases else None
        if tag.startswith("V") and tag not in ("VVG", "VVN", "VVI", "VVB"):
            return None  # "may", "can", a past tense: no default stated
    return None
