"""Natural text units and cheap lexical features for the offline judge: sentences without citation markers,
stemmed content words, and typed "key tokens" (years, numbers, ordinals, months, weekdays, capitalised names).

Pure functions over strings, memoised; they build on `ragtest_core.text` (pysbd sentences, the tokenizer's word
shape, STOPWORDS). `ragtest_core.support` and `ragtest_core.relevance` read texts only through these units.

- Citation markers "[2]", "[1][3]", "[2, 4]" are references, not claims: they are removed before anything else.
- Thousands separators are removed ("1,000" -> "1000"), number words up to twenty and the tens ("twelve",
  "thirty") and "hundred"/"thousand" become digits, ordinals up to "tenth" their number, so "two terms" and
  "2 terms" match and "second" is the ordinal 2.
- Content words are compared on their first `stem_prefix_length` characters (`ragtest_core.judge_params`; a
  truncation stemmer: "launched" matches "launch"); numbers are kept whole.
- A capitalised word is a name when it is not at the start of its sentence (nor right after "a"/"an": "an American
  lawyer"), or when it starts the sentence and the next word is capitalised too ("Catherine Cortez Masto ..."), or
  it is an acronym. Adjacent names form one span. An interjection is never a name ("Yes, The average game ...").
- Fillers (interjections, backchannels, epistemic hedges, modals: "yeah", "ok", "lol", "I think", "might") are never
  names. They stay content words (`JudgeParams.non_content` is empty): human judges count "yeah, I agree" as content
  the passage does not support, and treating fillers as non-content ranked BEGIN worse (docs/local-judge.md).
- A decade keeps one key however it is written: "1960's" and "1960s" are the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ragtest_core import judge_params
from ragtest_core.text import STOPWORDS, words
from ragtest_core.text import sentence_tuple as sentences  # pysbd sentences, memoised

#: Citation markers "[2]", "[1][3]", "[2, 4]", "[1-3]": references, not claims (with the space before them).
CITATION_MARKER = re.compile(r"\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
#: Words with their case kept: the same word shape as `ragtest_core.text.tokenize` (Latin scripts) ...
_WORD = re.compile(r"[^\W_]+(?:[.'’-][^\W_]+)*", re.UNICODE)
#: ... where Chinese and Japanese characters are one word each.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_CJK_SPLIT = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f])")
_YEAR = re.compile(r"1\d{3}|20\d{2}")
_WHOLE_DECIMAL = re.compile(r"\d+\.0+")

MONTHS = words("january february march april may june july august september october november december")
WEEKDAYS = words("monday tuesday wednesday thursday friday saturday sunday")
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_SMALL_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
NUMBER_WORDS: dict[str, str] = {
    **{word: str(value) for value, word in enumerate(_SMALL_NUMBERS.split())},
    **{word: str(20 + 10 * i) for i, word in enumerate(_TENS.split())},
    "hundred": "100",
    "thousand": "1000",
}
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth"
ORDINALS: dict[str, str] = {word: str(value) for value, word in enumerate(_ORDINALS.split(), 1)}
#: Capitalised words that are not names even inside a sentence.
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "i'll", "mr", "mrs", "ms", "dr", "st"})
_FILLERS = (
    "yes yeah yep yup nope nah ok okay oh ah aha wow lol haha hah hmm hm um uh hello hi hey thanks thank agree agreed "
    "absolutely definitely indeed exactly certainly totally sure really actually probably maybe perhaps guess think "
    "believe know might may must shall"
)
#: Words that state no fact: interjections, backchannels, epistemic hedges, modals. Never names.
FILLERS = words(_FILLERS)
#: Evaluative words ("true", "cool"): a candidate `JudgeParams.no_claim` set for the ablation.
EVALUATIVE = words(
    "true right correct wrong cool nice great awesome amazing interesting funny fun good bad love like glad"
)
_DECADE = re.compile(r"^(\d+)'s$")
_INDEFINITE = frozenset({"a", "an"})

# The kinds of key token; two key tokens are rivals only when their kinds are equal.
YEAR, NUMBER, ORDINAL, MONTH, WEEKDAY, NAME = "year", "number", "ordinal", "month", "weekday", "name"


@dataclass(frozen=True)
class Word:
    """One word of a sentence: its normalised key (stem or number value), whether it is a content word, its key
    kind (None for an ordinary word), and the capitalised-name span it belongs to (-1: none)."""

    text: str
    key: str
    content: bool
    kind: str | None
    span: int


@dataclass(frozen=True)
class Unit:
    """A sentence with its words; `keys` are its content keys, `key_tokens` its typed key tokens (in order)."""

    text: str
    words: tuple[Word, ...]
    keys: frozenset[str]
    key_tokens: tuple[tuple[str, str], ...]

    @property
    def content_positions(self) -> list[int]:
        return [i for i, w in enumerate(self.words) if w.content]


def strip_citations(text: str) -> str:
    """The text without citation markers ("written in C [2]." -> "written in C.")."""
    return CITATION_MARKER.sub("", text)


def stem(token: str) -> str:
    return token if any(c.isdigit() for c in token) else token[: judge_params.PARAMS.stem_prefix_length]


def _number_key(lower: str) -> str | None:
    if any(c.isdigit() for c in lower):
        digits = _DECADE.sub(r"\1s", lower.replace(",", "").replace("’", "'"))
        return digits.split(".")[0] if _WHOLE_DECIMAL.fullmatch(digits) else digits  # "1.0" is "1"; "3.5" stays
    return NUMBER_WORDS.get(lower)


def _kind(word: str, lower: str, number: str | None, index: int, words: list[str]) -> str | None:
    if number is not None:
        return YEAR if _YEAR.fullmatch(number) else NUMBER
    if lower in ORDINALS:
        return ORDINAL
    if lower in MONTHS and word[:1].isupper():
        return MONTH
    if lower in WEEKDAYS:
        return WEEKDAY
    if not word[:1].isupper() or lower in STOPWORDS or lower in _NOT_NAMES or lower in FILLERS or len(lower) < 2:
        return None
    if index > 0:
        # "an American lawyer", "a British band": after an indefinite article a capitalised word describes
        return None if words[index - 1].lower() in _INDEFINITE else NAME
    following = words[index + 1] if index + 1 < len(words) else ""
    return NAME if following[:1].isupper() or (word.isupper() and len(word) > 1) else None


def _words(text: str) -> list[str]:
    """Word strings of `text`, each Chinese or Japanese character on its own."""
    return [w for piece in _WORD.findall(text) for w in _CJK_SPLIT.split(piece) if w]


#: Sentences whose analysis `unit` keeps (about 2 KB each: the cache stays under about 70 MB).
UNIT_CACHE_SENTENCES = 32768


@lru_cache(maxsize=UNIT_CACHE_SENTENCES)
def unit(sentence: str) -> Unit:
    """The words of one sentence with content keys and typed key tokens (citation markers removed first)."""
    raw = _words(_THOUSANDS.sub("", strip_citations(sentence)))
    result: list[Word] = []
    span_id, in_span = -1, False
    for index, word in enumerate(raw):
        lower = word.lower()
        number = _number_key(lower)
        kind = _kind(word, lower, number, index, raw)
        ordinary = lower not in STOPWORDS and lower not in judge_params.PARAMS.non_content
        ordinary = ordinary and (len(lower) > 1 or lower.isdigit() or bool(_CJK.match(lower)))
        if kind == NAME and not in_span:
            span_id += 1
        in_span = kind == NAME
        key = number if number is not None else ORDINALS[lower] if kind == ORDINAL else stem(lower)
        result.append(Word(word, key, ordinary or kind is not None, kind, span_id if in_span else -1))
    keys = frozenset(w.key for w in result if w.content)
    key_tokens = tuple(dict.fromkeys((w.key, w.kind) for w in result if w.kind is not None))
    return Unit(sentence, tuple(result), keys, key_tokens)


def content_keys(text: str) -> frozenset[str]:
    """The content keys of every sentence of `text`."""
    return frozenset(k for s in sentences(strip_citations(text)) for k in unit(s).keys)


def makes_claim(sentence: str) -> bool:
    """Whether the sentence has a content word outside `PARAMS.no_claim` (shipped empty: any content word)."""
    no_claim = judge_params.PARAMS.no_claim
    return any(w.content and (w.kind is not None or w.text.lower() not in no_claim) for w in unit(sentence).words)


def claim_sentences(text: str) -> list[str]:
    """Sentences of `text` without citation markers, keeping those that make a claim (`makes_claim`)."""
    return [s for s in sentences(strip_citations(text)) if makes_claim(s)]
