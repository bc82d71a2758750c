"""Whether a documentation question names what it asks about on its own, and which sections give no questions.

A documentation sentence often talks about its section's topic without naming it ("The response body contains the
blackened Python code"): turned into a question ("What does the response body contain?"), it needs its section to
mean anything. So a documentation question's subject must hold an *anchor* (`anchored`) that names one thing in the
product ("The base class", "the response headers", "different loaders" have none).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import replace

from ragtest_core.text import STOPWORDS
from testgen.structure import PATH_SEPARATOR
from testgen.writers.base import Turned
from testgen.writers.english.clause import Casing
from testgen.writers.english.lexicon import GENERIC_NOUNS, LISTS, words
from testgen.writers.english.morphology import gerund_base, lemmas, parts_of_speech
from testgen.writers.english.tagger import tag_words

#: A dotted version number, optionally with a pre-release suffix: "2.0", "0.21.0", "3.0b1", "7.x".
_VERSION = r"v?\d+\.(?:\d+|x)(?:\.\d+)*(?:[a-z]+\d*)?"
#: A heading that is a release or names one: "0.10.0", "Version 5.2.1 — 2020-07-23", "0.14.0 (November 8th, 2020)",
#: "Upgrading to 3.2", "Major changes in 5.0", "Migrating to coverage.py 6.2", "Changes to ... in 20.3 (2020)".
_RELEASE_HEADING = re.compile(
    rf"^(?:version |release |v)?{_VERSION}\b|\b{_VERSION}(?:\s*(?:\(.*\)|[—–-].*))?$|"
    r"^(?:upgrading|migrating|major changes|changes)\b.*\b\d+(?:\.\d+|\.x)?\b",
    re.IGNORECASE,
)
#: A page title naming release notes: "Changelog", "Release notes", "Hatch history", "What's new", "News".
_RELEASE_TITLE = re.compile(
    r"\b(?:changelog|change log|changes|release notes|releases|release history|history|what's new|news)$|"
    r"^(?:changelog|change log|release notes|what's new)\b",
    re.IGNORECASE,
)
_NOUN_TAGS = frozenset({"NN0", "NN1", "NN2", "NP0", "VVG"})
_ADJECTIVE = frozenset({"AJ0", "AJC", "AJS"})
_NOUN_PHRASE = frozenset({"AJ0", "AJC", "AJS", "NN1", "NN2", "NP0", "NN0", "CRD", "ORD", "VVG", "VVN"})
#: A sentence's capitalised first word tagged as an adjective or a plural noun is an ordinary word, not a name.
_COMMON = _ADJECTIVE | {"NN2"}
#: A word shaped like code: dotted or underscored names, a call, an option, a path, inner capitals (CamelCase).
_IDENTIFIER = re.compile(r"^(?:--?[a-z][\w-]*|[\w]+[._/][\w./]*\w|\w+\(\)|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)$")


_RELATIVE_TASK = words(LISTS["specific.RELATIVE_TASK"])


def task_needs_context(task: str) -> bool:
    """Whether a how-to task leans on its context ("specify a different encoding"), gives its answer away (an
    option it names: "disable the cache with --no-cache") or reads wrong ("use a custom tests": an article before
    a plural)."""
    words = task.replace("`", "").split()
    if any(word.lower() in _RELATIVE_TASK or word.startswith("--") for word in words):
        return True
    tagged = tag_words(tuple(words))
    for at, word in enumerate(words):
        if word.lower() not in ("a", "an") or words[at + 1 : at + 2] in (["few"], ["couple"], ["lot"]):
            continue
        phrase = list(itertools.takewhile(lambda tag: tag in _NOUN_PHRASE, tagged[at + 1 :]))
        if phrase and phrase[-1] == "NN2":
            return True
    return False


def relative_subject(subject: str) -> bool:
    """Whether a question's subject is relative to something said before ("the other half of WSGI", "the same
    path", "the latter")."""
    words = {word.lower() for word in re.findall(r"[A-Za-z]+", subject)}
    return bool(words & (_RELATIVE_TASK | {"other", "former", "latter", "next", "last"}))


def release_notes(heading_path: str | None) -> bool:
    """Whether a chunk's section is release or upgrade notes ("Version 5.2.1 — 2020-07-23", "Upgrading to 3.2", a page
    titled "Changelog"): they describe the product's past, which no user asks of the product as it is."""
    if not heading_path:
        return False
    parts = [part.strip() for part in heading_path.split(PATH_SEPARATOR)]
    titled = _RELEASE_TITLE.search(parts[0].rstrip(":"))
    return bool(titled) or any(part.lower() == "unreleased" or _RELEASE_HEADING.search(part) for part in parts)


def anchored(
    phrase: str,
    sentence: str,
    heading: str,
    rare: Callable[[str], bool] = lambda _: True,
    named: Callable[[str], bool] = lambda _: True,
    common: Callable[[str], bool] = lambda _: False,
) -> bool:
    """Whether `phrase` (a question's subject, as the question writes it) names something on its own: it holds
    code of `sentence` (its source, inline code in backticks), a word shaped like code, a capitalised word (the
    sentence's first word only when it is `named`: seen capitalised inside sentences), a word no dictionary knows
    that is `rare` in the docs ("gevent"; not "middleware" on every page), or a content word of `heading` (the
    section's own heading). A name or code that most pages use (`common`: the product's own name, "Flask",
    `httpx`) is no anchor: every page is about it ("What does Black prefer?" asks about any of its choices)."""
    bare = phrase.replace("`", "")
    code = [span.strip() for span in re.findall(r"`([^`]+)`", sentence) if span.strip()]
    if any(name in bare and not common(name) for name in code):
        return True
    tokens = [re.sub(r"['’]s$", "", token) for token in re.findall(r"\w[\w.'’/()+#-]*", bare)]
    tagged = tag_words(tuple(tokens))
    opening = re.sub(r"['’]s$", "", (sentence.replace("`", "").split() or [""])[0])
    for number, token in enumerate(tokens):
        word = token.strip(".'’")
        if common(word):
            continue
        if _IDENTIFIER.match(word) or any(c.isdigit() for c in word) or word[1:] != word[1:].lower():
            return True
        if word[:1].isupper() and (number > 0 or token != opening or named(word) or tagged[0] not in _COMMON):
            return True  # not "Static analysis ...", "Modifications are ...": capitalised as the sentence's first word
        lowered = word.lower()
        if word.isalpha() and lowered not in STOPWORDS and not parts_of_speech(lowered) and rare(lowered):
            return True
    if len(tokens) == 1 and tagged[0] == "NN2" and len(heading.split()) == 1:
        return False  # "Sources are located in ..." under "Sources": which sources? the page's own
    words = [word for word in re.findall(r"[A-Za-z]+", heading.lower()) if word not in STOPWORDS and len(word) > 2]
    own = frozenset(lemma for word in words for lemma in lemmas(word))  # "Echoing" -> echo
    return any(
        own & lemmas(token.lower())
        for token, tag in zip(tokens, tagged, strict=True)
        if (tag in _NOUN_TAGS or (tag == "AJ0" and token.lower().endswith("ing"))) and not common(token)
    )  # "the echo function" under "Echoing", "logging output" under "Logging"; not "the most basic option" under
    # "Basic Arguments"


def sentence_case(turned: Turned, casing: Casing) -> Turned:
    """A question whose subject opens with an adjective or a gerund capitalised only as its sentence's first word,
    in sentence case ("What are Official Black Docker images available on?" -> "What are official Black Docker
    images ...", "What does Building man pages require?" -> "What does building man pages require?")."""
    words = turned.subject.split()
    if len(words) < 2 or not (words[0][:1].isupper() and words[0][1:].islower() and words[0].isalpha()):
        return turned
    gerund = gerund_base(words[0]) is not None  # "Building man pages"
    if casing.inner_capital[words[0].lower()] > 0 or not (gerund or tag_words(tuple(words))[0] in _ADJECTIVE):
        return turned
    subject = " ".join([words[0].lower(), *words[1:]])
    return replace(turned, question=turned.question.replace(turned.subject, subject, 1), subject=subject)


_THIN_NOUNS = GENERIC_NOUNS | words(LISTS["specific.THIN_NOUNS"])
_VAGUE_QUANTIFIERS = frozenset({"various", "several", "certain", "numerous", "some"})
_ARTICLE_OR_ADJECTIVE = frozenset({"AT0", "DT0", "AJ0", "AJC", "AJS", "CRD", "DPS"})


def thin_answer(span: str) -> bool:
    """Whether a documentation question's short answer says nothing in particular: every noun in it is generic
    ("support for functionality", "people"), its head before a "to" clause is ("ways to parse expressions of
    different types"), or it is a coordination cut short ("hidden prompts and asking"). Code names something."""
    if "`" in span:
        return False  # names code
    tokens = re.findall(r"[\w'’.-]+", span.lower())
    if not tokens:
        return True
    tagged = tag_words(tuple(tokens))
    if len(tokens) > 1 and tagged[-1] == "VVG" and tokens[-2] in ("and", "or"):
        return True
    if tagged[0] == "AV0" and not any(tag.startswith(("NN", "NP")) for tag in tagged):
        return True  # "temporarily": no thing at all
    if set(tokens[:4]) & _VAGUE_QUANTIFIERS:
        return True  # "access to various low-level information", "people from implementing certain patterns"
    nouns = [token for token, tag in zip(tokens, tagged, strict=True) if tag.startswith("NN")]
    if nouns and all(noun in _THIN_NOUNS for noun in nouns):
        return True
    cut = next((n for n, token in enumerate(tokens) if token == "to"), len(tokens))
    head, head_tags = tokens[:cut], tagged[:cut]
    return bool(head) and head[-1] in _THIN_NOUNS and all(tag in _ARTICLE_OR_ADJECTIVE for tag in head_tags[:-1])


#: Names that only an example uses ("The __all__ list marks hello as public": the example's own module).
_PLACEHOLDER = re.compile(
    r"\b(?:foo|bar|baz|qux|quux|spam|eggs|hello|my_\w+|example\.(?:com|org|net))\b", re.IGNORECASE
)


def example_answer(span: str) -> bool:
    """Whether a short answer names what only its section's example uses (placeholder names): a reader without
    the example cannot know it."""
    return _PLACEHOLDER.search(span.replace("`", "")) is not None


def ranking(phrase: str) -> bool:
    """Whether a subject ranks ("the most basic option", "the simplest reporting"): what it names depends on what
    it is compared with, in its section."""
    tokens = phrase.lower().split()[:4]
    tagged = tag_words(tuple(tokens))
    return any(tag == "AJS" or token in ("most", "least") for token, tag in zip(tokens, tagged, strict=True))
