"""Question relevance on a calibrated, row-independent scale: the anisotropy-corrected cosine with a fixed centring
mean, mapped by a fitted logistic (Platt) curve onto "probability that this text answers the question", and the
question's parts with a lexical check of which ones an answer addresses.

- Centring: sentence embeddings share a common direction (unrelated texts of one domain have raw cosines of 0.3-0.6
  with all-MiniLM-L6-v2); subtracting a mean embedding before the cosine removes it (Ethayarajh 2019; Su et al.
  2021). The mean is FIXED and shipped (`CENTRING_MEAN_FILE`, provenance in the JSON beside it), never taken from
  the texts being scored, so a row's score never depends on the other rows.
- Calibration: `Platt` maps the best centred cosine between a question and a text onto [0, 1] (`ANSWER_MAP_FILE`,
  fitted for the shipped mean: with another mean, refit it or read the scores as uncalibrated).
- Readings: a sentence is read as itself and as each ordered selection of its clauses (split at commas, semicolons,
  colons, brackets, dashes; at most `max_clauses` clauses) that still answers a part of the question: "The Hug
  framework, which makes APIs simple, was created by Timothy Crosley" is also read "The Hug framework was created by
  Timothy Crosley", so a complete answer reads at least as high as its answering fragment.
- Parts: a compound question ("When did X start, and what does it pass?") has parts; a part whose question word
  expects a type ("when" -> a year, month or weekday; "how many" -> a number; "who" -> a name) is addressed when
  the answer states a key token of that type that the question lacks; another part when an answer sentence shares a
  content word with it and the answer adds at least `min_new_words` word(s) of its own, or, for a yes/no part ("Is
  there ...?"), when the answer takes a side ("No, there is not ..."). "Where" expects no type: a place is often no
  name ("at your own bank").
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import numpy as np

from ragtest_core import judge_params
from ragtest_core.text import content_tokens
from ragtest_core.textunits import MONTH, NAME, NUMBER, ORDINAL, WEEKDAY, YEAR, unit

PARAMS_DIR = Path(__file__).resolve().parent / "params"
CENTRING_MEAN_FILE = PARAMS_DIR / "centring_mean_wiki7.npy"
ANSWER_MAP_FILE = PARAMS_DIR / "answer_relevancy_platt.json"
_OPENER = r"(?:what|how|when|where|who|whom|whose|why|which|is|are|was|were|does|do|did|can|could|has|have|had)"
#: Where a question splits into parts: "..., and <wh-word or auxiliary> ...", a question mark, a semicolon.
_PART_BOUNDARY = re.compile(rf",?\s+and\s+(?={_OPENER}\b)|\?\s*|;\s*", re.IGNORECASE)
_TIME = re.compile(r"^\s*(?:when\b|(?:in |since )?what (?:year|date|month|day|time)\b|(?:in )?which year\b)", re.I)
_COUNT = re.compile(
    r"^\s*(?:how (?:many|much|long|old|far|tall|big|large|high)\b|what (?:percentage|number|amount|proportion)\b)", re.I
)
_PERSON = re.compile(r"^\s*(?:who|whom|whose)\b", re.I)
#: A yes/no question ("Is there ...?", "Does it ...?"): answered by a polarity ("No, there is not ...").
_POLAR_QUESTION = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|may|must)\b", re.I
)
_POLARITY = re.compile(r"\b(?:yes|no|not|never|none)\b|n't\b", re.I)
#: Where a sentence splits into clauses for its readings (see the module docstring).
_CLAUSE = re.compile(r"\s*[,;:()]\s*|\s+[-–—]\s+")


@lru_cache(maxsize=8)
def load_centring_mean(path: str | None = None) -> np.ndarray:
    """The centring mean (float32 vector): the shipped one, or one built for a user's corpus."""
    return np.asarray(np.load(Path(path or CENTRING_MEAN_FILE)), dtype=np.float32)


def centre(vectors: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Rows minus the mean, re-normalised."""
    shifted = np.atleast_2d(vectors) - mean
    return np.asarray(shifted / np.maximum(np.linalg.norm(shifted, axis=1, keepdims=True), 1e-12), dtype=np.float32)


def centred_cosine(left: np.ndarray, right: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Cosine similarities (len(left) x len(right)) of the centred vectors."""
    return np.asarray(centre(left, mean) @ centre(right, mean).T, dtype=np.float32)


@dataclass(frozen=True)
class Platt:
    """p = 1 / (1 + exp(-(slope * x + intercept)))."""

    slope: float
    intercept: float

    def __call__(self, x: np.ndarray | float) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-(self.slope * np.asarray(x, dtype=float) + self.intercept))))


@lru_cache(maxsize=4)
def load_answer_map(path: str | None = None) -> Platt:
    """The calibration of question relevance (the shipped fit unless `path` names another)."""
    data = json.loads(Path(path or ANSWER_MAP_FILE).read_text(encoding="utf-8"))
    return Platt(float(data["slope"]), float(data["intercept"]))


def token_share(wanted: str, found: str) -> float:
    """Lexical relevance: the share of `wanted`'s content tokens (`ragtest_core.text.content_tokens`) that `found`
    holds (1.0 when `wanted` has none)."""
    want = set(content_tokens(wanted))
    return len(want & set(content_tokens(found))) / len(want) if want else 1.0


def question_parts(question: str) -> list[str]:
    """The sub-questions of a compound question (the whole question when it has one part)."""
    parts = [p.strip() for p in _PART_BOUNDARY.split(question) if p and unit(p).keys]
    return parts or [question]


def expected_kinds(part: str) -> frozenset[str] | None:
    """The key-token kinds that answer a part, or None when the part asks for no particular type."""
    expected = ((_TIME, {YEAR, MONTH, WEEKDAY}), (_COUNT, {NUMBER, YEAR, ORDINAL}), (_PERSON, {NAME}))
    return next((frozenset(kinds) for pattern, kinds in expected if pattern.search(part)), None)  # "where": None


def answers_yes_or_no(question: str, text: str) -> bool:
    """Whether the question asks yes or no and the text takes a side ("No, there is not ...")."""
    return bool(_POLAR_QUESTION.search(question)) and bool(_POLARITY.search(text))


def answers_a_part(question: str, text: str) -> bool:
    """Whether `text` could answer a part of the question: a key token of a kind some part expects that the
    question lacks, or (for parts without a type) a content word of its own."""
    asked = unit(question).keys
    kinds = [expected_kinds(p) for p in question_parts(question)]
    typed = frozenset().union(*(k for k in kinds if k is not None))
    typed_answer = any(w.kind in typed and w.key not in asked for w in unit(text).words)
    return typed_answer or (any(k is None for k in kinds) and bool(unit(text).keys - asked))


def readings(question: str, sentence: str) -> list[str]:
    """The sentence, then each ordered selection of its clauses that answers a part of the question (see the
    module docstring)."""
    clauses = [c.strip() for c in _CLAUSE.split(sentence) if c and c.strip() and unit(c).keys]
    if not 1 < len(clauses) <= judge_params.PARAMS.max_clauses:
        return [sentence]
    selections = (" ".join(chosen) for size in range(1, len(clauses)) for chosen in combinations(clauses, size))
    return list(dict.fromkeys([sentence, *(text for text in selections if answers_a_part(question, text))]))


def parts_addressed(question: str, claims: Sequence[str]) -> tuple[float, list[tuple[str, bool]]]:
    """The share of the question's parts that the answer's claim sentences address, and each part's verdict."""
    asked = unit(question).keys
    units = [unit(c) for c in claims]
    added = frozenset(k for u in units for k in u.keys) - asked
    typed = {w.kind for u in units for w in u.words if w.kind and w.key not in asked}
    verdicts: list[tuple[str, bool]] = []
    for part in question_parts(question):
        kinds = expected_kinds(part)
        if kinds is not None:
            ok = bool(typed & kinds)
        else:
            part_keys = unit(part).keys
            ok = not part_keys or (
                any(u.keys & part_keys for u in units) and len(added) >= judge_params.PARAMS.min_new_words
            )
            ok = ok or any(answers_yes_or_no(part, c) for c in claims)
        verdicts.append((part, ok))
    return sum(ok for _, ok in verdicts) / len(verdicts), verdicts
