"""Sentences of long evidence texts by a few visible rules, 30-60x faster than pysbd on retrieved contexts.

The local judge cuts retrieved contexts into sentences by these rules (why not pysbd: docs/local-judge.md):

- a line break ends a sentence;
- ".", "!" or "?" (with closing quotes or brackets after it) followed by white space ends one, unless the word
  before it (not closed by a bracket or quote) is a single letter ("J. K. Rowling"), holds a full stop itself
  ("U.S.", "e.g."), or is a common abbreviation ("Dr.", "No.", "approx.");
- "。", "！", "？" end one;
- a full stop glued to a capitalised word ("crisis.Sri Lanka", 'business."I have') ends one.
"""

from __future__ import annotations

import re
from functools import lru_cache

_END = re.compile(r"[.!?]+[\"'”’)\]]*\s+|(?<=[a-z0-9)][.!?])(?=[\"“]?[A-Z][a-z])|(?<=[。！？])")
_LAST_WORD = re.compile(r"(\S+)\s*$")
_ABBREVIATIONS = (
    "mr mrs ms dr prof st jr sr mt ft rev gen col lt sgt capt gov sen rep inc ltd co corp bros vs etc al no nos vol "
    "pp fig approx est dept univ jan feb mar apr jun jul aug sep sept oct nov dec"
)
ABBREVIATIONS = frozenset(_ABBREVIATIONS.split())


def _ends_sentence(before: str) -> bool:
    """Whether the text before an end mark closes a sentence (see the module docstring)."""
    found = _LAST_WORD.search(before)
    if found is None:
        return True
    raw = found.group(1).rstrip(".!?")
    if raw.endswith((")", "]", '"', "”", "’")):
        return True
    word = raw.lstrip("\"'“‘([")
    if len(word) == 1 and word.isalpha():
        return False
    return "." not in word and word.lower() not in ABBREVIATIONS


def _line_sentences(line: str) -> list[str]:
    out, start = [], 0
    for match in _END.finditer(line):
        if match.start() == match.end() or _ends_sentence(line[start : match.start() + 1]):
            out.append(line[start : match.end()].strip())
            start = match.end()
    return [piece for piece in [*out, line[start:].strip()] if piece]


@lru_cache(maxsize=16384)
def quick_sentences(text: str) -> tuple[str, ...]:
    """The sentences of `text`, stripped, empty ones dropped (see the module docstring); memoised."""
    return tuple(s for line in text.splitlines() for s in _line_sentences(line.strip()))
