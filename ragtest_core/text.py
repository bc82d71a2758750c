"""Language-aware text helpers shared by generation and evaluation.

Sentence splitting uses pysbd (abbreviations, decimals, CJK punctuation 。！？). Tokens are lower-cased words
for alphabetic scripts and single characters for Chinese and Japanese, so word counts and overlaps stay
meaningful in every language.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import pysbd

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_TOKEN = re.compile(f"[{_CJK}]|[^\\W_]+(?:[.'’-][^\\W_]+)*", re.UNICODE)

STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)

_PYSBD_LANGUAGES = {"en", "zh", "ja", "de", "fr", "es", "it", "nl", "ru", "pl", "da", "el", "ar", "fa", "hi"}


def detect_language(text: str) -> str:
    """An ISO 639-1 code from the script: 'ja' (kana present), 'zh' (Han), 'ko', else 'en'.

    Script detection is exact for CJK, which is what sentence splitting and word limits depend on.
    """
    sample = text[:5000]
    letters = sum(1 for ch in sample if ch.isalpha())
    if not letters:
        return "en"
    kana = len(_KANA.findall(sample))
    han = len(_CJK_CHAR.findall(sample)) - kana
    hangul = len(_HANGUL.findall(sample))
    if kana / letters > 0.05:
        return "ja"
    if han / letters > 0.2:
        return "zh"
    if hangul / letters > 0.2:
        return "ko"
    return "en"


_THREAD = threading.local()


def _segmenter(language: str) -> pysbd.Segmenter:
    """A pysbd segmenter for `language`, one per thread: a segmenter keeps the text it splits on itself, so two
    threads sharing one get each other's sentences."""
    segmenters: dict[str, pysbd.Segmenter] = _THREAD.__dict__.setdefault("segmenters", {})
    if language not in segmenters:
        segmenters[language] = pysbd.Segmenter(language=language if language in _PYSBD_LANGUAGES else "en", clean=False)
    return segmenters[language]


def split_sentences(text: str, language: str | None = None) -> list[str]:
    """Sentences of `text`, stripped, with empty ones dropped. Line breaks always end a sentence."""
    language = language or detect_language(text)
    segmenter = _segmenter(language)
    sentences: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        sentences.extend(s.strip() for s in segmenter.segment(line) if s.strip())
    return sentences


#: A full stop glued to the next sentence ("crisis.Sri Lanka"): a lower-case letter or digit, [.!?], a capital.
_GLUED = re.compile(r"(?<=[a-z0-9)][.!?])(?=[A-Z][a-z])")


@lru_cache(maxsize=65536)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(split_sentences(_GLUED.sub(" ", text)))


def sentences_of(text: str) -> list[str]:
    """`split_sentences`, memoised (scoring splits the same contexts many times), after separating sentences glued
    without a space ("crisis.Sri Lanka is ..."), which scraped and generated texts contain."""
    return list(_sentences(text))


def clear_caches() -> None:
    """Forget memoised sentence splits (benchmarks use it to measure a cold run)."""
    _sentences.cache_clear()


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens; each Chinese/Japanese character is one token."""
    return [token.lower() for token in _TOKEN.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Tokens without stopwords and one-letter Latin tokens: the words that carry facts."""
    return [t for t in tokenize(text) if t not in STOPWORDS and (len(t) > 1 or _CJK_CHAR.match(t) or t.isdigit())]


def word_count(text: str) -> int:
    """Words for alphabetic scripts; for CJK text, characters count as words at 2 characters per word."""
    tokens = tokenize(text)
    cjk = sum(1 for t in tokens if _CJK_CHAR.match(t))
    return (len(tokens) - cjk) + (cjk + 1) // 2


def normalise_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
