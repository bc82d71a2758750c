"""Detecting refusals and noncommittal answers ("I don't know", "the context does not mention ...")."""

from __future__ import annotations

import re

from ragtest_core.text import sentences_of
from ragtest_core.textunits import makes_claim

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
#: Where a hedging sentence splits into clauses: punctuation and contrastive connectives ("I'm not sure, but ...").
_CONTRAST = r"(?:but|although|though|however|yet)"
_CLAUSE_BREAK = re.compile(rf"\s*[,;:]\s*(?:{_CONTRAST}\s+)?|\s+{_CONTRAST}\s+", re.IGNORECASE)


def is_noncommittal_sentence(sentence: str) -> bool:
    """True when the sentence contains a refusal or hedge phrase."""
    return _NONCOMMITTAL.search(sentence.replace("’", "'").replace("‘", "'")) is not None


def committed_part(sentence: str) -> str:
    """What the sentence commits to: the whole sentence when it does not hedge; else its clauses that do not hedge
    ("I'm not sure, but it sold 170 billion" -> "it sold 170 billion"; "I don't know." -> "")."""
    if not is_noncommittal_sentence(sentence):
        return sentence
    clauses = [c for c in _CLAUSE_BREAK.split(sentence) if c.strip() and not is_noncommittal_sentence(c)]
    return ", ".join(c.strip() for c in clauses)


#: True when any sentence of the answer refuses or hedges (the answer does not commit to an answer).
is_noncommittal = is_noncommittal_sentence


def is_refusal(answer: str) -> bool:
    """True when the answer hedges and commits to nothing: every sentence is a refusal or a hedge whose other
    clauses state nothing ("I'm not sure, but it was 1991." is not a refusal)."""
    sentences = sentences_of(answer)
    return (
        bool(sentences)
        and any(is_noncommittal_sentence(s) for s in sentences)
        and not any(makes_claim(committed_part(s)) for s in sentences)
    )


def is_unanswerable_reference(reference: str | None, question_type: str | None = None) -> bool:
    """The row's reference declines to answer: an unanswerable question (by its type), or a reference whose every
    sentence is a refusal ("The corpus does not contain this information.", the generator's own)."""
    return (question_type or "").strip().lower() == "unanswerable" or (bool(reference) and is_refusal(reference or ""))
