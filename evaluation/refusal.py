"""Detecting refusals and noncommittal answers ("I don't know", "the context does not mention ...")."""

from __future__ import annotations

import re

from ragtest_core.text import sentences_of

#: Phrases that make a sentence a refusal or a hedge: it asserts no fact about the question.
NONCOMMITTAL_PATTERNS: tuple[str, ...] = (
    r"\bi (?:do not|don't|dont) know\b",
    r"\bi(?:'m| am) not sure\b",
    r"\b(?:can ?not|can't|could not|couldn't|unable to|not able to) (?:answer|determine|find|provide|say|tell)\b",
    r"\bi(?:'m| am) not aware of\b",
    r"\b(?:is|are|was|were|has|have|had) not (?:been )?(?:mentioned|provided|specified|stated|given|available|known)\b",
    r"\bnot (?:mentioned|specified|stated) in\b",
    r"\b(?:does|do|did) not (?:mention|say|specify|state|provide|contain|include|give|have) "
    r"(?:any |this |that |the |such |enough )?(?:information|details|anything|data|answer)\b",
    r"\b(?:no|not enough|insufficient) (?:information|details|data|context)\b",
    r"\bthere is no (?:mention|information|indication)\b",
    r"\b(?:do not|don't|does not|doesn't) have (?:any )?(?:information|details|data|knowledge)\b",
)
_NONCOMMITTAL = re.compile("|".join(NONCOMMITTAL_PATTERNS), re.IGNORECASE)


def normalise_quotes(text: str) -> str:
    return text.replace("’", "'").replace("‘", "'")


def is_noncommittal_sentence(sentence: str) -> bool:
    """True when the sentence contains a refusal or hedge phrase."""
    return _NONCOMMITTAL.search(normalise_quotes(sentence)) is not None


def is_noncommittal(answer: str) -> bool:
    """True when any sentence of the answer refuses or hedges (the answer does not commit to an answer)."""
    return is_noncommittal_sentence(answer)


def is_refusal(answer: str) -> bool:
    """True when every sentence of the answer is a refusal: the answer makes no claim at all."""
    sentences = sentences_of(answer)
    return bool(sentences) and all(is_noncommittal_sentence(s) for s in sentences)


def is_unanswerable_reference(reference: str | None, question_type: str | None = None) -> bool:
    """The row's reference declines to answer: an unanswerable question (by its type), or a reference whose every
    sentence is a refusal ("The corpus does not contain this information.", the generator's own)."""
    if (question_type or "").strip().lower() == "unanswerable":
        return True
    return bool(reference) and is_refusal(reference or "")
