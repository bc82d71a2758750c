"""Query styles and lengths: the same question as users type it (`--query-styles`, `--query-lengths`; each style
and length is described in docs/generation.md, "Personas and query styles").

A styled row asks its question in a style (`query_style`) and a length (`query_length`) and keeps the question as
written (`canonical_question`), whose reference answer and gold contexts it keeps. Row i takes style i mod S and
length (i div S) mod L. Offline the transforms are deterministic, seeded by the question (`restyle`); with an LLM
a style or length other than perfect/medium is a rewrite that falls back to the offline transform when it fails,
is unchanged or loses a code identifier or number (counted in `Restyler.stats`).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ragtest_core.errors import LLMError, LLMPermanentError
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import CANONICAL_QUESTION, QUERY_LENGTH, QUERY_STYLE, TestSample, stable_id
from ragtest_core.text import STOPWORDS

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models
    from ragtest_core.llm.client import LLMClient
    from testgen.personas import Persona

STYLES = ("perfect", "web", "misspelled", "poor_grammar")
LENGTHS = ("short", "medium", "long")
STAGE = "testgen_restyle"

_EDGE = "?.,;:!\"'`“”‘’()[]{}"
_CODE = re.compile(r"[_./()\d`<>=-]|[a-z][A-Z]")
_KEEP = frozenset({"not", "no", "how", "what", "when", "where", "which", "who", "why"})
_QUESTION_WORDS = frozenset({"how", "what", "when", "where", "which", "who", "why"})
_AUX = re.compile(r"^(\W*(?:how|what|where|when|why|which|who)\s+)(?:do|does|did)\s+", re.IGNORECASE)
_ARTICLE = re.compile(r"(?<![`\w])(?:the|an|a)\s+(?=[a-z])", re.IGNORECASE)
_AGREEMENT = {"is": "are", "are": "is", "does": "do", "do": "does", "has": "have", "have": "has", "was": "were"}
_NEIGHBOURS = dict(zip("abcdefghijklmnopqrstuvwxyz", "sqvfwdfgujjkknipwtawyczhtx", strict=True))
_LEAD_INS = (
    "I'm new to this and stuck on one thing.",
    "Quick question from a project I'm working on.",
    "I've read the docs but I'm still not sure about something.",
)


def parse_choices(text: str | None, allowed: Sequence[str], what: str) -> tuple[str, ...]:
    """`"web,misspelled"` as ("web", "misspelled"), each one of `allowed` (() for None or blank)."""
    chosen = tuple(dict.fromkeys(part.strip() for part in (text or "").split(",") if part.strip()))
    if unknown := [name for name in chosen if name not in allowed]:
        raise ValueError(f"unknown {what} {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return chosen


def turn_of(index: int, styles: Sequence[str], lengths: Sequence[str]) -> tuple[str | None, str | None]:
    """The style and length of the set's row `index` (None where none are asked for)."""
    style = styles[index % len(styles)] if styles else None
    length = lengths[(index // max(len(styles), 1)) % len(lengths)] if lengths else None
    return style, length


def restyle(question: str, style: str | None, length: str | None, seed: int = 0) -> str:
    """The question in `length`, then in `style`, offline (the same question, style and seed: the same text)."""
    rng = random.Random(int(stable_id(str(seed), question, str(style), str(length)), 16))
    text = _LENGTHS[length or "medium"](question, rng)
    return _STYLES[style or "perfect"](text, rng)


def _core(token: str) -> str:
    return token.strip(_EDGE)


def _is_code(word: str) -> bool:
    """A code identifier, number or acronym: typed as it is."""
    return bool(_CODE.search(word)) or (len(word) > 1 and word.isupper())


def _terms(question: str, keep: frozenset[str]) -> list[str]:
    words = [_core(token) for token in question.split() if "`" not in token or _core(token)]
    return [w if _is_code(w) else w.lower() for w in words if w and (w.lower() not in STOPWORDS or w.lower() in keep)]


def _web(question: str, rng: random.Random) -> str:
    return " ".join(_terms(question, frozenset({"not", "no"}))) or question.rstrip("?").lower()


def _misspelled(question: str, rng: random.Random) -> str:
    tokens = question.split(" ")
    typeable = [i for i, token in enumerate(tokens) if _typo_fits(token)]
    if not typeable:  # a short question ("What is AnyIO?"): a typo in its question word
        typeable = [i for i, token in enumerate(tokens[:1]) if _core(token).lower() in _QUESTION_WORDS - {"why", "how"}]
    if not typeable:
        return question.rstrip("?")  # no word to misspell: the slip is the missing "?"
    for i in rng.sample(typeable, max(1, round(len(typeable) / 3))):
        word = _core(tokens[i])
        tokens[i] = tokens[i].replace(word, _typo(word, rng), 1)
    return " ".join(tokens)


def _typo_fits(token: str) -> bool:
    word = _core(token)
    return "`" not in token and len(word) >= 5 and word.isalpha() and word.islower()


def _typo(word: str, rng: random.Random) -> str:
    """One typo inside `word` (its first and last letters kept)."""
    inner = range(1, len(word) - 2)
    options = [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in inner if word[i] != word[i + 1]]
    options += [word[:i] + word[i + 1 :] for i in range(1, len(word) - 1)]
    options += [word[:i] + word[i] + word[i:] for i in range(1, len(word) - 1)]
    options += [word[:i] + _NEIGHBOURS.get(word[i], word[i]) + word[i + 1 :] for i in range(1, len(word) - 1)]
    return rng.choice([option for option in options if option != word])


def _poor_grammar(question: str, rng: random.Random) -> str:
    changes = [lambda text: _AUX.sub(r"\1", text, count=1), lambda text: _ARTICLE.sub("", text), _wrong_agreement]
    applicable = [change for change in changes if change(question) != question]
    text = question
    for change in rng.sample(applicable, rng.randint(1, len(applicable))) if applicable else []:
        text = change(text)
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and not _is_code(_core(first)):
        text = text[0].lower() + text[1:]
    return text.rstrip("?").rstrip()


def _wrong_agreement(text: str) -> str:
    tokens = text.split(" ")
    for i, token in enumerate(tokens):
        if token.lower() in _AGREEMENT:
            tokens[i] = _AGREEMENT[token.lower()]
            return " ".join(tokens)
    return text


def _short(question: str, rng: random.Random) -> str:
    terms = _terms(question, _KEEP)
    if not terms or len(terms) >= len(question.split()):
        return question
    if terms[0] in _QUESTION_WORDS:
        terms[0] = terms[0].capitalize()
    return " ".join(terms) + "?"


_STYLES = {"perfect": lambda text, rng: text, "web": _web, "misspelled": _misspelled, "poor_grammar": _poor_grammar}
_LENGTHS = {"short": _short, "medium": lambda q, rng: q, "long": lambda q, rng: f"{rng.choice(_LEAD_INS)} {q}"}


# --- rewrites by an LLM -----------------------------------------------------------------------------------------

STYLE_TASKS = {
    "perfect": "Write it in correct, complete English.",
    "web": "Write it as a keyword search query: the key terms only, no question words or function words.",
    "misspelled": "Put one or two natural typing mistakes into longer ordinary words (never into names, code or "
    "numbers).",
    "poor_grammar": "Write it with the grammar mistakes of a hurried or non-native writer (dropped articles, wrong "
    "agreement), keeping its meaning.",
}
LENGTH_TASKS = {
    "short": "Make it short: five words at most.",
    "medium": "Keep it about as long as it is.",
    "long": "Make it long: one or two sentences about the asker's situation first, without giving the answer.",
}
REWRITE_PROMPT = """Rewrite the question below as a real user would type it. {style} {length}{persona}
Keep what it asks and every key term it names (names, code identifiers, numbers, options), so that the same answer \
still answers it. Give the rewritten question only.

question: {question}
"""


class Rewrite(BaseModel):
    question: str


def rewrite_prompt(question: str, style: str | None, length: str | None, persona: Persona | None = None) -> str:
    asker = f"\nThe asker is {persona.name}: {persona.description}" if persona is not None else ""
    return REWRITE_PROMPT.format(
        style=STYLE_TASKS[style or "perfect"], length=LENGTH_TASKS[length or "medium"], persona=asker, question=question
    )


def planned_rewrites(size: int, styles: Sequence[str], lengths: Sequence[str]) -> list[PlannedCall]:
    """The LLM rewrite calls of a set of `size` rows (on a typical question): one per row whose turn is not
    perfect and medium."""
    question = "How do you configure the connection pool resource limits of the client?"
    turns = (turn_of(index, styles, lengths) for index in range(size) if styles or lengths)
    return [
        PlannedCall(STAGE, rewrite_prompt(question, style, length), Rewrite)
        for style, length in turns
        if (style or "perfect", length or "medium") != ("perfect", "medium")
    ]


class Restyler:
    """Puts each row of a set in its turn's style and length: offline transforms, or LLM rewrites with `llm`."""

    def __init__(
        self, styles: Sequence[str], lengths: Sequence[str], seed: int = 0, llm: LLMClient | None = None
    ) -> None:
        self.styles, self.lengths, self.seed, self.llm = tuple(styles), tuple(lengths), seed, llm
        #: Rows per style and length, LLM rewrites made and those that fell back to the offline transform.
        self.stats: Counter[str] = Counter()

    async def apply(self, sample: TestSample, index: int, persona: Persona | None = None) -> TestSample:
        """`sample` (row `index` of the set) asked in its turn's style and length, the question as written kept."""
        style, length = turn_of(index, self.styles, self.lengths)
        question = sample.question
        styled = restyle(question, style, length, self.seed)
        if self.llm is not None and (style, length) != ("perfect", "medium") and styled != question:
            styled = await self._rewrite(question, style, length, persona) or styled
        self.stats.update(name for name in (style and f"style_{style}", length and f"length_{length}") if name)
        extra = {CANONICAL_QUESTION: question, QUERY_STYLE: style, QUERY_LENGTH: length}
        return TestSample.model_validate(
            {**sample.model_dump(), "question": styled, **{k: v for k, v in extra.items() if v}}
        )

    async def _rewrite(self, question: str, style: str | None, length: str | None, persona: Persona | None) -> str:
        """The LLM's rewrite; "" when the call failed, gave the question back unchanged or lost a code identifier or
        number of it."""
        assert self.llm is not None
        self.stats["rewrite_calls"] += 1
        try:
            reply = await self.llm.structured(rewrite_prompt(question, style, length, persona), Rewrite, stage=STAGE)
        except LLMPermanentError:
            raise
        except LLMError:
            self.stats["rewrite_fallbacks"] += 1
            return ""
        text = " ".join(reply.question.split())
        code = {_core(token) for token in question.split() if _is_code(_core(token))}
        if not text or text == question or not all(term.lower() in text.lower() for term in code):
            self.stats["rewrite_fallbacks"] += 1  # nothing new, or a code identifier or number lost
            return ""
        return text
