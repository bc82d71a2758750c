"""An English sentence split into fronted modifier, subject, verb group and rest (`parse_clause`), and which
capitalised words a document writes as names (`Casing`).

The main verb is the first word after the subject that is an auxiliary, a modal or a form of one of the lexicon's
verbs (`testgen.writers.english.lexicon`), not preceded by a determiner, possessive or "to". Sentences whose shape
is not clean (a pronoun subject, a subject with a comma or too many words, a fragment) raise `Skip` with a reason.
Why the lexicon and not the tagger finds the verb: docs/development.md.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ragtest_core.text import word_count
from testgen.writers.english.lexicon import (
    AUX_BE,
    DEICTIC,
    DETERMINERS,
    DISCOURSE,
    FORMS,
    JOINING_WORDS,
    LISTS,
    MODALS,
    POSSESSIVES,
    PRONOUNS,
    VAGUE_HEADS,
    VerbForm,
    words,
)
from testgen.writers.english.morphology import gerund_base, parts_of_speech

MAX_SUBJECT_WORDS = 6
MAX_SENTENCE_WORDS = 45
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DATE = (
    rf"(?:\d{{1,2}} {_MONTH} \d{{4}}|{_MONTH} \d{{1,2}}, \d{{4}}|(?:early |mid-|mid |late )?{_MONTH} \d{{4}}"
    r"|(?:the )?(?:early |mid-|mid |late )?\d{3,4}s|\d{3,4}(?: BC| AD| BCE| CE)?)(?![\w%-])"
)
#: A parenthesis or a bracketed citation with the space before it.
PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]")
_FRONTED = re.compile(
    r"^(?P<prep>In|On|By|During|Since|As of|Until|From|After|Before|Around|At|Within|Across|Throughout|Among)"
    rf" (?P<phrase>{_MONTH} \d{{1,2}}, \d{{4}}|[^,]{{1,45}}), (?P<body>.+)$"
)
_ADVERBS = words(LISTS["clause.ADVERBS"])
_NOT_BEFORE_VERB = DETERMINERS | POSSESSIVES | words(LISTS["clause.NOT_BEFORE_VERB"])
_HEAD_END = frozenset(["of", "in", "for", "with", "on", "between", "to", "from", "at", "by", "among"])
_ADJECTIVES = words(LISTS["clause.ADJECTIVES"])
_ADJECTIVE_SUFFIX = re.compile(r"(?:al|ic|ive|ous|ful|ory|ary|ent|ant|less|able|ible)$")
_REGULAR_PARTICIPLE = re.compile(r"^[a-z]{3,}ed$")
_CARDINAL = re.compile(r"^(?:\d[\d,.]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozens|hundreds)$")
_COMMON_NOUN_SUFFIX = re.compile(r"[a-z]{3}(?:tion|sion|ment|ness|ity|ance|ence|ancy|ency|acy|ism|ship|hood)s?$")
_NAME_WORD = re.compile(r"^(?:[A-Z][\w.'’+#-]*|\d[\w.+-]*|van|von|de|der|da|del|du|la|le|of|the|and|&)$")


class Skip(Exception):
    """A sentence no rule turns cleanly; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_QUANTIFIERS = frozenset(["every", "each", "all", "some", "any", "many", "most", "several", "both", "no"])


def _never_a_name(word: str) -> bool:
    """Whether lemminflect knows `word` only as an adjective, verb or adverb form ("relational", "installing"):
    no noun that could be a name ("Waitress", "Flask")."""
    kinds = parts_of_speech(word)
    return bool(kinds) and kinds <= {"ADJ", "VERB", "ADV"}


class Casing:
    """Which capitalised first words are ordinary words: seen lower-cased at least as often as capitalised
    inside a sentence ("Division" -> "division", "Brown bears" -> "brown bears", "Python" stays)."""

    def __init__(self, text: str = "") -> None:
        self.lower: Counter[str] = Counter(re.findall(r"(?<=[\w,;:] )([a-z][\w'’-]*)", text))
        self.inner_capital: Counter[str] = Counter(
            w.lower() for w in re.findall(r"(?<=[a-z0-9,;:] )([A-Z][\w'’-]*)", text)
        )

    def first_word(self, word: str, next_word: str = "") -> str:
        gerund = word[:1].isupper() and word[1:].islower() and word.endswith("ing") and _never_a_name(word.lower())
        if gerund or word.lower() in _QUANTIFIERS:
            return word.lower()  # "Using BaseHTTPMiddleware ...": a gerund, whatever follows it; "Every Starlette ..."
        spelled = next_word[:1].isupper() or not word[:1].isupper() or not word[1:].islower()
        if spelled or not word.replace("-", "").isalpha():
            return word  # "CPython", "GPT-3", "U.S." keep their spelling
        key = word.lower()
        if self.lower[key] > 0 and self.lower[key] >= self.inner_capital[key]:
            return key
        if self.inner_capital[key] == 0 and (_COMMON_NOUN_SUFFIX.search(key) or _never_a_name(key)):
            return key  # "Copulation ...", "Relational ...", "Installing ...": never capitalised inside a sentence
        return word

    def is_name(self, phrase: str) -> bool:
        """Every word capitalised (or a digit/particle), and the first not an ordinary word."""
        tokens = phrase.split()
        if not tokens or not tokens[0][:1].isupper() or not all(_NAME_WORD.match(t) for t in tokens):
            return False
        return self.first_word(tokens[0], tokens[1] if len(tokens) > 1 else "") == tokens[0]


@dataclass(frozen=True)
class Clause:
    """A declarative sentence cut at its main verb."""

    sentence: str  # as in the text (answers must be spans of it)
    subject: str  # ready for a question (first word re-cased)
    subject_as_written: str
    aux: str | None  # is/are/was/were/has/have/had or a modal
    verb: VerbForm | None  # the main verb; None after a bare copula or possessive "have"
    rest: str  # the words after the verb group
    passive: bool = False
    fronted: tuple[str, str] | None = None  # ("In", "2008")

    @property
    def plural(self) -> bool:
        if self.aux in ("are", "were", "have", "is", "was", "has"):
            return self.aux in ("are", "were", "have")
        if _gerund_phrase(self.subject):
            return False  # "Building man pages requires ...": a gerund phrase is one thing
        return (self.verb is not None and self.verb.tense == "pres") or is_plural(self.subject)

    @property
    def past(self) -> bool:
        return self.aux in ("was", "were", "had") or (
            self.verb is not None and self.verb.tense in ("past", "past_part") and self.aux is None
        )


def _gerund_phrase(subject: str) -> bool:
    """Whether a subject is a gerund with its object ("Building man pages"): one activity, singular."""
    tokens = subject.split()
    return len(tokens) > 1 and len(tokens[0]) > 5 and gerund_base(tokens[0].lower()) is not None


def is_plural(subject: str) -> bool:
    """Whether the head noun (last word before a preposition) looks plural: "threats to bears" -> yes."""
    tokens = subject.split()
    if _gerund_phrase(subject):
        return False
    cut = next((i for i, w in enumerate(tokens) if i > 0 and w.lower() in _HEAD_END), None)
    index = (cut or len(tokens)) - 1
    head = tokens[index].lower() if index == 0 else tokens[index]
    return head.islower() and head.endswith("s") and not head.endswith(("ss", "us", "is", "ics"))


def clean_sentence(sentence: str) -> str:
    """The sentence without parentheses, citations and the final full stop; raises Skip when unusable."""
    text = sentence.strip()
    if text.endswith(("?", "？")):
        raise Skip("question")
    if not text.endswith("."):
        raise Skip("fragment")
    text = PAREN.sub("", text).strip()
    if re.search(r"[()\[\]{}^|=<>]|https?:|\bcitation\b|\bet al\b", text):
        raise Skip("parenthesis_or_citation")
    words = word_count(text)
    if (not text[:1].isupper() and not text[:1].isdigit()) or words < 4:
        raise Skip("fragment")
    if words > MAX_SENTENCE_WORDS:
        raise Skip("sentence_too_long")
    return text[:-1].strip().replace(" ,", ",")


def strip_discourse(text: str) -> str:
    for marker in DISCOURSE:
        if text.startswith(marker + ", "):
            rest = text[len(marker) + 2 :]
            return rest[:1].upper() + rest[1:] if rest else rest
    return text


def parse_clause(sentence: str, casing: Casing) -> Clause:
    """The clause of `sentence`, or raise Skip. A fronted modifier ("In 2008, X did Y") is kept as ("In", "2008")."""
    body = strip_discourse(clean_sentence(sentence))
    match = _FRONTED.match(body)
    fronted = (match.group("prep"), match.group("phrase")) if match else None
    body = match.group("body") if match else body
    tokens = body.split(" ")
    start = _verb_index(tokens)
    subject_tokens = tokens[:start]
    subject = check_subject(subject_tokens, casing, at_start=fronted is None)
    index = start
    while is_adverb(tokens[index]):
        index += 1
    word = tokens[index].lower()
    rest_tokens = tokens[index + 1 :]
    aux: str | None = None
    verb: VerbForm | None = None
    passive = False
    if word in AUX_BE or word in MODALS or word in ("has", "have", "had"):
        aux = word
        rest_tokens = _skip_adverbs(rest_tokens)
        if rest_tokens and rest_tokens[0].lower() in ("not", "never", "no"):
            raise Skip("negation")
        if (aux in MODALS and rest_tokens and rest_tokens[0].lower() == "be") or (
            aux in ("has", "have", "had") and rest_tokens and rest_tokens[0].lower() == "been"
        ):
            rest_tokens, passive = _skip_adverbs(rest_tokens[1:]), True
        form = FORMS.get(rest_tokens[0].lower().rstrip(",")) if rest_tokens else None
        if form is None and rest_tokens and _REGULAR_PARTICIPLE.match(rest_tokens[0]) and (aux in AUX_BE or passive):
            form = VerbForm("", "part", rest_tokens[0])  # an -ed participle the lexicon does not know
        if form is not None and (
            ((aux in AUX_BE or passive) and form.tense in ("part", "past_part"))
            or (aux in MODALS and not passive and form.tense == "pres")
            or (aux in ("has", "have", "had") and not passive and form.tense in ("part", "past_part"))
        ):
            verb = form
            passive = passive or aux in AUX_BE
            rest_tokens = rest_tokens[1:]
        elif passive:
            raise Skip("no_pattern")
    else:
        verb = FORMS[word]
    rest = " ".join(rest_tokens).strip()
    return Clause(sentence.strip(), subject, " ".join(subject_tokens), aux, verb, rest, passive, fronted)


def is_adverb(word: str) -> bool:
    word = word.lower()
    return word in _ADVERBS or (word.endswith("ly") and len(word) > 4 and word.isalpha() and word not in _NOT_ADVERBS)


_NOT_ADVERBS = words("only family early likely holy italy july supply apply reply assembly fly")


def _skip_adverbs(tokens: list[str]) -> list[str]:
    index = 0
    while index < len(tokens) - 1 and is_adverb(tokens[index]):
        index += 1
    return tokens[index:]


def _verb_index(tokens: list[str]) -> int:
    """Where the verb group starts (after the subject); raises Skip when there is none in reach."""
    for index in range(1, min(len(tokens), MAX_SUBJECT_WORDS + 3)):
        word = tokens[index].lower()
        if tokens[index - 1].endswith((",", ";", ":")):
            raise Skip("complex_subject")
        if (is_adverb(word) and index + 1 < len(tokens) and _is_verb(tokens, index + 1)) or _is_verb(tokens, index):
            return index
    raise Skip("no_verb")


def _is_verb(tokens: list[str], index: int) -> bool:
    raw = tokens[index]
    word = raw.lower()
    if raw[:1].isupper() or raw.endswith(","):
        return False
    if word in AUX_BE or word in MODALS or word in ("has", "have", "had"):
        return True
    form = FORMS.get(word)
    if form is None or tokens[index - 1].lower() in _NOT_BEFORE_VERB | _ADJECTIVES:
        return False
    if form.tense == "pres":
        return is_plural(" ".join(tokens[:index])) or tokens[index - 1].lower() in ("people", "children")
    if form.tense == "part":
        return False
    if form.tense == "past_part":  # "the language developed by X is ...": a reduced relative clause
        return not any(t.lower() in AUX_BE | MODALS for t in tokens[index + 1 : index + 8])
    return True


def lettered(tokens: list[str]) -> bool:
    """Whether a name of several words is an example's, lettered: "Template B", "the v argument"."""
    return len(tokens) > 1 and (
        re.fullmatch(r"[A-Z]", tokens[-1]) is not None or any(re.fullmatch(r"[b-z]", t) for t in tokens)
    )


def check_subject(tokens: list[str], casing: Casing, at_start: bool = True) -> str:
    """The subject ready for a question, or raise Skip for pronouns, vague or long subjects."""
    if not tokens or len(tokens) > MAX_SUBJECT_WORDS:
        raise Skip("subject_too_long")
    lowered = [t.lower() for t in tokens]
    pointing = any(w in PRONOUNS | POSSESSIVES | DEICTIC for w in lowered[1:]) or lowered[-1] in ("and", "or")
    if lowered[0] in VAGUE_HEADS or re.split(r"['’]", lowered[0])[0] in PRONOUNS or pointing:
        raise Skip("pronoun_or_vague_subject")
    if len(tokens) > 1 and _CARDINAL.match(lowered[0]) and tokens[1].islower():
        raise Skip("pronoun_or_vague_subject")  # "Two techniques were developed ...": which two?
    if any(w in ("which", "who", "that", "whose", "when", "where", "but", "not") for w in lowered):
        raise Skip("complex_subject")  # "Last but not least echo ...": a discourse phrase, not a subject
    if lettered(tokens):
        raise Skip("pronoun_or_vague_subject")  # "Template B", "the v argument": an example's name
    if lowered[0] in JOINING_WORDS or any(t in ("-", "–", "—") or not re.match(r"^[\w.'’+#&/-]+$", t) for t in tokens):
        raise Skip("complex_subject")  # "Otherwise X is ...", "BinaryJSONField - stores ...": no subject
    if lowered[0] in DETERMINERS:
        rest = tokens[1:]
        if not rest or (len(rest) == 1 and rest[0].islower()) or lowered[0] in ("a", "an"):
            raise Skip("pronoun_or_vague_subject")  # "The species", "A language": unclear without context
        return " ".join([lowered[0], *rest])
    first = casing.first_word(tokens[0], tokens[1] if len(tokens) > 1 else "") if at_start else tokens[0]
    if len(tokens) == 1 and first.islower() and (is_plural(first) or len(first) < 5 or _ADJECTIVE_SUFFIX.search(first)):
        raise Skip("pronoun_or_vague_subject")  # "Mothers ...", "Examples ...": too vague on their own
    return " ".join([first, *tokens[1:]])
