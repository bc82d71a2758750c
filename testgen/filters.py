"""The question rules every writer's output must pass, each failure named by a reason (`QuestionRules.reason`, in
the order it checks them; docs/generation.md, "Filters").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragtest_core.text import content_tokens, detect_language, normalise_whitespace, tokenize, word_count, words

DEFAULT_MAX_WORDS = 10
DEFAULT_MAX_COPIED_WORDS = 6
_CONTEXT_WORDS = re.compile(
    r"\b(context|contexts|passage|passages|provided|excerpt|the (?:text|document|article|paragraph) above"
    r"|according to the (?:text|article|document))\b",
    re.IGNORECASE,
)
_CJK_CONTEXT = re.compile(r"(上下文|文脈|文章中|本文|段落|コンテキスト|根据文本|根據文本|上文|以上の)")
_COMPOUND = re.compile(
    r"\b(?:and|or)\s+(?:what|when|who|whom|whose|where|why|how|which|is|are|was|were|does|do|did|can|could)\b",
    re.IGNORECASE,
)
_CJK_COMPOUND = re.compile(
    r"(?:什么|哪|谁|誰|如何|为什么|為什麼|多少|何|どこ|いつ|なぜ).*(?:并且|並且|以及|而且|和|そして|また|、).*"
    r"(?:什么|哪|谁|誰|如何|为什么|為什麼|多少|何|どこ|いつ|なぜ)"
)
#: "w1 and w2" (the words either side of "and"), or two CJK characters either side of 和/与/與/及/以及/跟.
_AND = re.compile(
    r"[\w'’.+#-]+\s+and\s+[\w'’.+#-]+"
    r"|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{1,2}(?:以及|和|与|與|及|跟)[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{1,2}",
    re.IGNORECASE,
)
#: Questions that ask one thing about two subjects: their relation or comparison.
_COMPARISON = re.compile(
    r"\bbetween\b|\b(?:differ|differs|difference|differences|compare|compared|comparison|common|similar|"
    r"similarity|relationship|related|relate|versus|vs)\b|区别|區別|不同|比较|比較|関係|違い",
    re.IGNORECASE,
)
_QUESTION_WORDS = words("what when who whom whose where why how which many much long")
_LIGHT = words(
    "use uses used have has had include includes included support supports supported allow allows allowed"
    " provide provides provided offer offers offered contain contains contained feature features make makes"
    " made get gets got give gives gave take takes took produce produces produced require requires required"
    " thing things something example examples type types kind kinds way ways also one called known"
)
_DEFINITION = re.compile(r"^(?:what|who) (?:is|are|was|were) (?P<term>.+)\?$", re.IGNORECASE)
_CJK_FUNCTION = frozenset(
    "什么甚麼是哪谁誰如何为為何怎样樣多少吗嗎呢的了和与與在有么麼ですかとはのにをがでもなぜどこいつだれ"
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def is_specific(question: str) -> bool:
    """Enough content to point at one fact: two content words beyond question words and light verbs
    ("What does Python use?" is generic), one for a definition ("What is CPython?"); CJK: two characters."""
    if _CJK.search(question):
        latin_terms = len(re.findall(r"[A-Za-z][A-Za-z0-9.+#-]+", question))  # "什么是RAGAs？": a Latin name
        return sum(1 for ch in question if _CJK.match(ch) and ch not in _CJK_FUNCTION) + 2 * latin_terms >= 2
    content = [w for w in content_tokens(question) if w not in _QUESTION_WORDS]
    if (definition := _DEFINITION.match(question.strip())) and content_tokens(definition.group("term")):
        return True
    return len([w for w in content if w not in _LIGHT]) >= 2


def is_compound(question: str, contexts: Sequence[str] = ()) -> bool:
    """Two questions in one: "What is X and when was it released?", two question marks, or two things asked about
    at once ("What are Psyco and PyPy?", "What do X and Y require?"). An "and" is allowed only inside a comparison
    ("between X and Y", "How do X and Y differ?") or inside a phrase found verbatim in `contexts` (a name such as
    "Procter and Gamble", or the text's own "climate change and pollution")."""
    if len(re.findall(r"[?？]", question)) > 1:
        return True
    if _COMPOUND.search(question) or _CJK_COMPOUND.search(question):
        return True
    if _COMPARISON.search(question):
        return False
    haystack = " ".join(normalise_whitespace(text).casefold() for text in contexts)
    for match in _AND.finditer(question):
        phrase = match.group(0).strip(" ?？,").casefold()
        if phrase and phrase not in haystack:
            return True
    return False


def copied_run(question: str, texts: Sequence[str]) -> int:
    """Words (CJK: two characters a word) in the longest run of the question's tokens found verbatim in `texts`."""
    q = tokenize(question)
    start, length = 0, 0
    for text in texts:
        match = difflib.SequenceMatcher(None, q, tokenize(text), autojunk=False).find_longest_match()
        if match.size > length:
            start, length = match.a, match.size
    return word_count(" ".join(q[start : start + length])) if length else 0


@dataclass
class QuestionRules:
    """Checks one question/answer pair against the rules."""

    max_words: int = DEFAULT_MAX_WORDS
    max_copied_words: int = DEFAULT_MAX_COPIED_WORDS

    def reason(
        self, question: str, answer: str, *, language: str | None = None, contexts: Sequence[str] = ()
    ) -> str | None:
        """The reason to reject the pair, or None to keep it."""
        if not (question := question.strip()):
            return "empty_question"
        if not answer.strip():
            return "empty_answer"
        if unfinished(answer):
            return "unfinished_answer"
        if not question.endswith(("?", "？")):
            return "no_question_mark"
        if _CONTEXT_WORDS.search(question) or _CJK_CONTEXT.search(question):
            return "mentions_context"
        if is_compound(question, contexts):
            return "compound_question"
        if word_count(question) > self.max_words:
            return "too_long"
        # what `detect_language` can tell apart: ja, zh, ko, else en (every alphabetic script)
        if language is not None and detect_language(question) != (language if language in ("ja", "zh", "ko") else "en"):
            return "wrong_language"
        if not is_specific(question):
            return "generic_question"
        if contexts and copied_run(question, contexts) > self.max_copied_words:
            return "copies_context"
        return None


#: The end of a reference cut short: a final article, modal, conjunction or relative pronoun ("... a `twistd` DNS
#: server plugin which can." from "which can:" before a list; "the name of the ." from "the .rpy file"), or a colon
#: that introduced what was cut ("logs file open mode:.").
_UNFINISHED = re.compile(
    r"(?:\b(?:the|a|an|which|whose|can|could|will|would|should|may|might|must|and|or)|[:;,(])\s*[.!]?\s*$",
    re.IGNORECASE,
)


def unfinished(answer: str) -> bool:
    """Whether a reference answer stops before its sentence ends (an English function word or a colon last)."""
    return _UNFINISHED.search(answer.strip()) is not None


def normalise_question(question: str) -> str:
    """Lower case, single spaces, no punctuation: the key for exact duplicate detection."""
    return normalise_whitespace(re.sub(r"[^\w\s]", " ", question.casefold()))
