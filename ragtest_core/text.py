"""Language-aware text helpers shared by generation and evaluation.

Sentence splitting uses pysbd (abbreviations, decimals, CJK punctuation 。！？). Tokens are lower-cased words
for alphabetic scripts and single characters for Chinese and Japanese, so word counts and overlaps stay
meaningful in every language.

pysbd's time grows much faster than the length of what it splits, so a line longer than `LONG_LINE` characters (no
real prose) is first cut into pieces of about `PIECE` characters, each ending where a sentence visibly ends (., !, ?,
。, ！ or ？ then a space and a capital, a digit, a quote or a CJK character; failing that, a space), and pysbd
splits each piece: time proportional to the length.
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
_WORD_CHAR = f"(?:(?![{_CJK}])[^\\W_])"  # a letter or digit that is not CJK: "ELIZAを" is "eliza" + "を"
_TOKEN = re.compile(f"[{_CJK}]|{_WORD_CHAR}+(?:[.'’-]{_WORD_CHAR}+)*", re.UNICODE)

_STOPWORDS = (
    "a about above after again against all also am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her here "
    "hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off "
    "on once only or other our ours ourselves out over own same she should so some such than that the their theirs "
    "them themselves then there these they this those through to too under until up very was we were what when where "
    "which while who whom why will with would you your yours yourself yourselves"
)
#: Words that carry no fact of their own (an English stopword list, one word each).
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS.split())


def words(text: str) -> frozenset[str]:
    """The words of a list written as one string ("the a an")."""
    return frozenset(text.split())


_PYSBD_LANGUAGES = {"en", "zh", "ja", "de", "fr", "es", "it", "nl", "ru", "pl", "da", "el", "ar", "fa", "hi"}


def detect_language(text: str) -> str:
    """An ISO 639-1 code from the script: 'ja' (kana present), 'zh' (Han), 'ko', else 'en' (exact for CJK, which is
    what sentence splitting and word limits depend on)."""
    sample = text[:5000]
    letters = max(1, sum(1 for ch in sample if ch.isalpha()))
    kana, hangul = len(_KANA.findall(sample)), len(_HANGUL.findall(sample))
    shares = {"ja": (kana, 0.05), "zh": (len(_CJK_CHAR.findall(sample)) - kana, 0.2), "ko": (hangul, 0.2)}
    return next((code for code, (count, floor) in shares.items() if count / letters > floor), "en")


_THREAD_LOCAL = threading.local()


def _segmenter(language: str) -> pysbd.Segmenter:
    """This thread's segmenter for `language`: a pysbd Segmenter keeps the text being split on itself
    (`original_text`), so one instance shared by threads mixes up their sentences."""
    segmenters: dict[str, pysbd.Segmenter] = _THREAD_LOCAL.__dict__.setdefault("segmenters", {})
    code = language if language in _PYSBD_LANGUAGES else "en"
    if code not in segmenters:
        segmenters[code] = pysbd.Segmenter(language=code, clean=False)
    return segmenters[code]


#: Lines up to this many characters are split by pysbd whole; longer ones piece by piece (see the module doc).
LONG_LINE = 10_000
#: The size of the pieces a long line is cut into before pysbd splits each.
PIECE = 4_000
#: Where a piece may end: a sentence's end mark, closing quotes or brackets, spaces, and the start of a sentence.
#: (Two lower-case letters or digits before the mark: "Dr. Smith", "e.g. The" and "U.S. Army" are not ends.)
_PIECE_END = re.compile(
    r"""(?<=[a-z0-9]{2})[.!?]["'”’)\]]*\s+(?=["'“‘(\[]?[A-Z0-9\u3040-\u30ff\u4e00-\u9fff])|[。！？]"""
)


def split_sentences(text: str, language: str | None = None) -> list[str]:
    """Sentences of `text`, stripped, with empty ones dropped. Line breaks always end a sentence. Time is
    proportional to the length of `text` (long lines are split piece by piece)."""
    segmenter = _segmenter(language or detect_language(text))
    pieces = [piece for line in text.splitlines() if line.strip() for piece in line_pieces(line.strip())]
    return [s.strip() for piece in pieces for s in segmenter.segment(piece) if s.strip()]


def line_pieces(line: str, long_line: int = LONG_LINE, piece: int = PIECE) -> list[str]:
    """`line` whole when it has at most `long_line` characters; else pieces of at most about `piece` characters
    (at least half of it), each ending at a visible sentence end where there is one, else at a space."""
    if len(line) <= long_line:
        return [line]
    pieces: list[str] = []
    start = 0
    while len(line) - start > piece:
        window = line[start + piece // 2 : start + piece]  # the last sentence end in it, else its last space, else all
        ends = [match.end() for match in _PIECE_END.finditer(window)] or [window.rfind(" ") + 1 or len(window)]
        cut = start + piece // 2 + ends[-1]
        pieces.append(line[start:cut])
        start = cut
    pieces.append(line[start:])
    return [p for p in pieces if p.strip()]


#: A full stop glued to the next sentence ("crisis.Sri Lanka"): a lower-case letter or digit, [.!?], a capital.
_GLUED = re.compile(r"(?<=[a-z0-9)][.!?])(?=[A-Z][a-z])")


@lru_cache(maxsize=65536)
def sentence_tuple(text: str) -> tuple[str, ...]:
    """`sentences_of` as a tuple (the memoised value itself)."""
    return tuple(split_sentences(_GLUED.sub(" ", text)))


def sentences_of(text: str) -> list[str]:
    """`split_sentences`, memoised (scoring splits the same contexts many times), after separating sentences glued
    without a space ("crisis.Sri Lanka is ..."), which scraped and generated texts contain."""
    return list(sentence_tuple(text))


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
