"""Answer spans: where an answer taken from a sentence ends (`clip`: at the first clause boundary, a list comma
or a second verb), the object a verb takes (`split_object`), and the numbers and amounts a span can hold."""

from __future__ import annotations

import re

from ragtest_core.text import STOPWORDS, content_tokens
from testgen.writers.english.clause import Skip
from testgen.writers.english.lexicon import AUX_BE, FORMS, MODALS, PRONOUNS, words

_NUMBER = (
    r"(?:\d[\d,.]*(?: million| billion| thousand| hundred)?"
    r"|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundreds of|thousands of)"
)
_APPROX = (
    r"(?:about |around |approximately |over |more than |nearly |almost |up to |some |roughly |as much as |at least )?"
)
COUNT = rf"(?P<count>{_APPROX}{_NUMBER})"
_UNITS = (
    r"km/h|mph|kg|g|lb|lbs|t|tonnes|tons|kilograms|pounds|grams|km|m|cm|mm|ft|in|mi|metres|meters|feet|inches|miles"
    r"|kilometres|kilometers|centimetres|centimeters|years|months|weeks|days|hours|minutes|seconds|%|percent"
)
AMOUNT = rf"(?P<amount>{_APPROX}{_NUMBER}(?:[–-]{_NUMBER})?(?: to {_NUMBER})? ?(?P<unit>{_UNITS})\b)"
LENGTH_UNITS = words("km m cm mm ft in mi metres meters feet inches miles kilometres kilometers")
_CLAUSE_END = re.compile(
    r", (?:which|who|whose|where|while|whereas|although|because|but|and|or|as|with|including|such as|making"
    r"|allowing|thus|so|leading|resulting|followed|despite|though|then|especially|particularly|mainly|giving)\b"
    r"| (?:which|whose|whereas|although|because|while|when|where|who|since|unless|if|though|such as|that)\b"
    r"|[;:]| [-–—] | and (?:can|may|is|are|was|were|has|have|had|will|would|it|they)\b"
    r"| and (?:the|a|an|its|their|his|her) (?:[\w-]+ ){0,3}(?:is|are|was|were|has|have|had|does|do|did|can|will|may)\b"
)
_ADJECTIVE_END = re.compile(r"(?:-\w+|al|ic|ive|ous|ful|er|ed|ing|able|ible|less|ary)$")
_MODIFIER = re.compile(
    r" (?P<prep>in|on|at|during|since|from|under|for|by|to|with|through|into|after|before|until|via|across|within"
    r"|over|as|among|around|near|between|using|because|due|than|against|without)\b ?(?P<tail>.*)$"
)
_LIST = re.compile(r"^[^,]{1,40}(?:, [^,]{1,40})*,? (?:and|or) [^,]{1,40}$")
_VALUE = (
    rf"(?P<value>{_APPROX}{_NUMBER}(?:[–-]{_NUMBER})?(?: to {_NUMBER})?(?: ?(?:{_UNITS})\b)?"
    r"(?: (?:individuals|species|members|people|users|animals|bears))?)(?=$|[ ,;.])"
)
_ATTRIBUTE_NAME = r"(?P<attr>[a-z][\w-]*(?: [a-z][\w-]*){0,2})"
ATTRIBUTE = re.compile(rf"^(?:a|an) {_ATTRIBUTE_NAME} of {_VALUE}")
WITH_ATTRIBUTE = re.compile(rf"^(?:a|an) [^,]{{3,60}}, with (?:a|an) {_ATTRIBUTE_NAME} of {_VALUE}")
MAX_ANSWER_WORDS = 15


def clip(text: str, keep_list: bool = True) -> str:
    """The answer up to the first clause boundary (still a span of the sentence); raises Skip when empty."""
    cut = _CLAUSE_END.search(text)
    clipped = text[: cut.start()] if cut else text
    if not (keep_list and _LIST.match(clipped) and len(clipped.split()) <= MAX_ANSWER_WORDS):
        clipped = _clip_list_comma(clipped)
    clipped = _cut_second_verb(clipped.strip(" ,."))
    tokens = clipped.split()
    if not tokens or not content_tokens(clipped) or tokens[-1].lower() in STOPWORDS:
        raise Skip("no_answer")
    if len(tokens) >= 2 and tokens[-2].lower() in ("a", "an", "the"):
        raise Skip("no_answer")  # "with a simple": cut inside a noun phrase
    if len(tokens) == 2 and tokens[0].lower() in ("a", "an", "the") and clipped.islower() and len(tokens[1]) < 10:
        raise Skip("vague_answer")  # "the discovery", "a risk": says nothing without its clause
    if tokens[0].lower() in ("by", "to", "of", "and", "or", "for"):
        raise Skip("no_answer")
    if tokens[0].lower() in PRONOUNS or tokens[0].lower() in AUX_BE | MODALS | {"has", "have", "had", "been"}:
        raise Skip("pronoun_answer")
    return clipped


def _cut_second_verb(text: str) -> str:
    """Cut "handwritten digits and includes 60" at " and includes": a second clause, not part of the answer."""
    tokens = text.split(" ")
    for index in range(1, len(tokens) - 1):
        form = FORMS.get(tokens[index + 1].lower())
        if tokens[index] == "and" and form is not None and form.tense in ("pres3", "past", "past_part"):
            return " ".join(tokens[:index])
    return text


def _clip_list_comma(text: str) -> str:
    """Cut at the first comma that does not just separate adjectives ("a high-level, general-purpose ...")."""
    for comma in re.finditer(",", text):
        before = text[: comma.start()].split()
        if not before or before[-1][0].isupper() or not _ADJECTIVE_END.search(before[-1]):
            return text[: comma.start()]
    return text


def split_object(rest: str) -> tuple[str, str | None, str]:
    """(object, preposition, tail): the object ends at the first modifier preposition after its first word."""
    first, _, remainder = rest.partition(" ")
    match = _MODIFIER.search(" " + remainder) if remainder else None
    if match is None:
        return rest, None, ""
    return f"{first} {remainder[: match.start()]}".strip(), match.group("prep"), match.group("tail")


def short_object(text: str, max_words: int = 5) -> str:
    obj = clip(text, keep_list=False)
    if len(obj.split()) > max_words or obj.split()[0].lower() in PRONOUNS:
        raise Skip("object_too_long")
    return obj


def place_answer(text: str) -> str:
    place = clip(re.split(r" (?:from|since|during|until|when|for|at|by|with|to) ", text)[0])
    if not any(w[:1].isupper() for w in place.split()) and len(content_tokens(place)) < 2:
        raise Skip("vague_place")
    return place
