"""A sentence whose subject is a pronoun for the document's topic, said with the topic instead.

Encyclopedic text names its topic once and then says "It", "They" or "This species" ("The brown bear is native to
Eurasia. It is the most widespread bear."): such a sentence is turned with the topic for its pronoun (`resolve`).
The topic comes from the document's title (a Wikipedia page title, or a file name such as
`Brown_bear.txt`): a title with a lower-case noun ("Brown bear") is a kind of thing ("The brown bear" / "Brown
bears"), one ending like a mass noun ("Deep learning") or a name ("Python") takes "It" only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

_SINGULAR = re.compile(r"^(?:It|This species|The species|This animal|The animal) (?=[a-z])")
_PLURAL = re.compile(r"^They (?=[a-z])")
_MASS_ENDINGS = ("ing", "ence", "ance", "ism", "ics", "ity", "ion")
_NOT_ABOUT_IT = re.compile(
    r"^(?:It|They) (?:is|was|are|were) \w+ (?:that|to|whether|for)\b|^It (?:is|was) (?:not|also)\b"
)


@dataclass(frozen=True)
class Topic:
    """A document's topic: a name ("Python"), a kind of thing ("Brown bear") or a mass noun ("Deep learning")."""

    name: str
    kind: str  # "name", "thing" or "mass"

    @property
    def singular(self) -> str:
        return f"The {self.name[0].lower()}{self.name[1:]}" if self.kind == "thing" else self.name

    @property
    def plural(self) -> str | None:
        return f"{self.name}s" if self.kind == "thing" and not self.name.endswith("s") else None

    def named_in(self, sentence: str) -> bool:
        """Whether the sentence's first words name the topic ("Brown bears ...", "The brown bear's ...")."""
        head = self.name.split()[-1].lower()
        return any(word.startswith(head) for word in sentence.lower().split()[:4])


def topic_of(source: str) -> Topic | None:
    """The topic of a document from its title or file name ("Python (programming language)" -> "Python")."""
    name = PurePath(source).stem if "/" in source or source.endswith((".txt", ".md")) else source
    name = re.sub(r"\s*\([^)]*\)", "", name.replace("_", " ")).strip()
    words = name.split()
    if not words or len(words) > 4 or not name[0].isupper():
        return None
    if any(not w.islower() for w in words[1:]) or (len(words) == 1 and re.search(r"[A-Z].*[A-Z]|\d", name)):
        return Topic(name, "name")
    if words[-1].lower().endswith(_MASS_ENDINGS):
        return Topic(name, "mass")
    return Topic(name, "thing" if len(words) > 1 else "name")


def resolve(sentence: str, topic: Topic | None, previous_about_topic: bool) -> str | None:
    """The sentence with its pronoun subject replaced by the topic, or None when it has none or it is unsafe.

    "The bear ..." / "Bears ..." in the article on polar bears name the topic by its head noun whatever came
    before; "It" / "They" / "This species" only right after a sentence about the topic."""
    if topic is None or _NOT_ABOUT_IT.match(sentence):
        return None
    if topic.kind == "thing" and len(topic.name.split()) > 1:
        head = topic.name.split()[-1].lower()
        plural = re.match(rf"^(?:The )?{head.capitalize()}s (?=[a-z])", sentence)
        if plural and topic.plural:
            return topic.plural + " " + sentence[plural.end() :]
        singular = re.match(rf"^(?:The|This) {head} (?=[a-z])", sentence)
        if singular:
            return topic.singular + " " + sentence[singular.end() :]
    if not previous_about_topic:
        return None
    if _SINGULAR.match(sentence):
        return _SINGULAR.sub(topic.singular + " ", sentence, count=1)
    if _PLURAL.match(sentence) and topic.plural:
        return _PLURAL.sub(topic.plural + " ", sentence, count=1)
    return None
