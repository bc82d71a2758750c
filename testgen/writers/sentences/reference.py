"""Reference answers as complete sentences, from the source sentence a question was turned from.

A question's short answer (its `answer_span`, e.g. "Asia") is a span of one source sentence. The reference answer
is that sentence, cleaned (no parentheses, citation marks or leading discourse marker), cut after the span at the
next clause boundary (", which", "; ", ", while", ...) so that it states the answer without the clause's
digressions, and ended with a full stop. List commas never cut: "Brown bears live in Alaska, ..., and Siberia"
keeps the whole list, so the reference never pretends the first item is the whole answer.
"""

from __future__ import annotations

import re

from testgen.writers.english.clause import PAREN
from testgen.writers.english.lexicon import FORMS
from testgen.writers.sentences.cjk import CJK_PAREN, strip_markdown

#: Where a sentence's next clause starts: the reference stops there when the answer came before it.
_CLAUSE_BOUNDARY = re.compile(
    r" and (?:the|a|an|its|their|his|her) (?:[\w-]+ ){0,3}(?:is|are|was|were|has|have|had|does|do|did|can|will|may)\b|"
    r";\s|:\s|\s[–—]\s|\s-\s|,\s(?=(?:which|who|whose|where|while|whereas|although|though|but|because|since|as|"
    r"making|allowing|leading|resulting|giving|thus|so|despite|unlike|followed|including|such as|according|"
    r"with the exception|as well as)\b)"
)
_DISCOURSE = re.compile(
    r"^(?:However|In addition|Additionally|Also|Moreover|Furthermore|Notably|Overall|In general|In particular|"
    r"In practice|As a result|Consequently|Similarly|Nevertheless|Nonetheless|Meanwhile|Thus|Therefore|Instead),\s+"
)
#: " and" followed by a finite verb: a second predicate ("... handwritten digits and includes 60,000 ...").
_SECOND_PREDICATE = re.compile(
    r",? and (?:(?P<aux>also|then|later|now|still|often|can|could|may|might|will|would|should|must|is|are|was|were|"
    r"has|have|had|became|becomes|remains|remained)\b|(?P<verb>[a-z]+(?:s|ed))\b)"
)
MIN_REFERENCE_WORDS = 4


def reference_sentence(sentence: str, span: str, language: str = "en") -> str:
    """The reference answer for a question whose short answer `span` comes from `sentence`."""
    if language in ("zh", "ja"):
        text = re.sub(r"\s{2,}", " ", CJK_PAREN.sub("", strip_markdown(sentence))).strip()
        return text if text.endswith(("。", "．", "！", "？")) else text + "。"
    text = _DISCOURSE.sub("", re.sub(r"\s+", " ", PAREN.sub("", sentence)).strip().replace(" ,", ","))
    body = (text[:1].upper() + text[1:]).rstrip(".!? ")
    at = body.find(span)
    if at >= 0:
        end = at + len(span)
        cut = min(
            (m.start() for m in (_CLAUSE_BOUNDARY.search(body, end), _second_predicate(body, end)) if m), default=None
        )
        if cut is not None and len(body[:cut].split()) >= MIN_REFERENCE_WORDS:
            body = body[:cut]
    return body.rstrip(" ,;:") + "."


def _second_predicate(body: str, start: int) -> re.Match[str] | None:
    """Where a second predicate joined by "and" starts (a verb form, not a plural noun: "cats and dogs")."""
    for match in _SECOND_PREDICATE.finditer(body, start):
        form = FORMS.get(match.group("verb") or "")
        if match.group("verb") and (form is None or form.tense == "pres"):
            continue  # "and networks", "and related": not a verb the lexicon knows
        return match
    return None


def join_sentences(*sentences: str) -> str:
    """Sentences as one reference answer (each ends with its own full stop; repeats dropped)."""
    return " ".join(dict.fromkeys(s.strip() for s in sentences if s.strip()))
