"""Checks applied to every writer's questions, with rejections counted by reason."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ragtest.text import normalise_whitespace, word_count

DEFAULT_MAX_WORDS = 10
_CONTEXT_WORDS = re.compile(
    r"\b(context|contexts|passage|passages|provided|the (?:text|excerpt|document|article) above)\b",
    re.IGNORECASE,
)
_CJK_CONTEXT = re.compile(r"(上下文|文脈|文章中|本文|段落|コンテキスト)")


@dataclass
class QuestionFilter:
    """Rules: ends with "?", names no context/passage, at most `max_words` words, not a repeat.

    The word limit is strict (no slack); CJK text counts two characters per word (ragtest.text.word_count).
    """

    max_words: int = DEFAULT_MAX_WORDS
    rejections: Counter[str] = field(default_factory=Counter)
    _seen: set[str] = field(default_factory=set)

    def check(self, question: str, answer: str) -> str | None:
        """The reason to reject this question, or None to keep it (and remember it for duplicates)."""
        reason = self._reason(question, answer)
        if reason is not None:
            self.rejections[reason] += 1
            return reason
        self._seen.add(normalise_question(question))
        return None

    def _reason(self, question: str, answer: str) -> str | None:
        question = question.strip()
        if not question:
            return "empty_question"
        if not answer.strip():
            return "empty_answer"
        if not question.endswith(("?", "？")):
            return "no_question_mark"
        if _CONTEXT_WORDS.search(question) or _CJK_CONTEXT.search(question):
            return "mentions_context"
        if word_count(question) > self.max_words:
            return "too_long"
        if normalise_question(question) in self._seen:
            return "duplicate"
        return None


def normalise_question(question: str) -> str:
    """Lower case, single spaces, no punctuation: the key for duplicate detection."""
    return normalise_whitespace(re.sub(r"[^\w\s]", " ", question.casefold()))
