"""Multi-hop shapes over the claims of two blocks from different sections (block 1 is the root).

- `compare_definitions`: two definitions of named things ("`httpcore` is ...", "`h11` is ...") ->
  "What is the difference between `httpcore` and `h11`?"; the reference gives both definitions.
- `compare_options`: two options named in code ("What does the `NO_PROXY` environment variable control?") ->
  "What is the difference between the `NO_PROXY` and `SSL_CERT_FILE` environment variables?" (their kind said
  when both questions name it the same way).
- `bridge`: block A defines an identifier as "the ..." ("`httpcore` is the underlying transport implementation for
  `httpx`"), block B asks about that identifier; the question names it by A's description only, so A says which
  thing is meant and B what is asked. Not written when B's own text already holds the description.

Every shape cites both blocks; the screen's critic then rejects any draft that one of its blocks answers alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from testgen.writers.base import Draft

DEFINITION_KINDS = frozenset({"concept", "definition"})
_OPTION = re.compile(r"^What does the (?P<subj>`[^`]+`) (?P<noun>[\w -]+?) (?:control|do|set|mean|specify)\?$")
_SUBJECT = re.compile(r"`[^`]+`")


@dataclass(frozen=True)
class Claim:
    """A fact of one block: the question it answers, its short answer, its reference sentence and its kind
    ("concept", "option", "definition", ...); `subject` is what it is about ("" when unknown)."""

    block: int
    question: str
    span: str
    reference: str
    kind: str
    subject: str = ""


@dataclass(frozen=True)
class Hop:
    """A multi-hop question before it becomes a draft."""

    question: str
    answer: str
    blocks: tuple[int, ...]
    shape: str
    evidence: tuple[str, ...]


def pairable(claim: Claim) -> bool:
    """Whether a claim can take part in a shape: a definition or an option of a named thing, or a fact about an
    identifier (a bridge's second hop)."""
    if claim.kind in DEFINITION_KINDS or claim.kind == "option":
        return bool(claim.subject) and _named(claim.subject)
    return bool(_SUBJECT.search(claim.question))


def hop_drafts(claims: Sequence[Claim], texts: Sequence[str], max_words: int) -> list[Draft]:
    """Every multi-hop draft from claims of the root (block 1) and of another block (`texts`: each block's text,
    block 1 first), questions of at most `max_words` words, each question once."""
    made: dict[str, Hop] = {}
    root = [c for c in claims if c.block == 1]
    others = [c for c in claims if c.block != 1]
    for first in root:
        for second in others:
            for hop in (
                compare_definitions(first, second),
                compare_options(first, second),
                bridge(first, second, texts),
                bridge(second, first, texts),
            ):
                if hop is not None and len(hop.question.split()) <= max_words:
                    made.setdefault(hop.question.lower(), hop)
    return [_draft(hop) for hop in made.values()]


def _draft(hop: Hop) -> Draft:
    return Draft(
        hop.question,
        hop.answer,
        hop.blocks,
        "multi_context",
        evidence=hop.evidence,
        strategy=f"multihop_{hop.shape}",
    )


def _join(*references: str) -> str:
    return " ".join(dict.fromkeys(r.strip() for r in references if r.strip()))


def _blocks(a: Claim, b: Claim) -> tuple[int, ...]:
    return tuple(sorted({a.block, b.block}))


def _named(subject: str) -> bool:
    """A subject that names one thing: inline code, or a capitalised name."""
    return bool(_SUBJECT.fullmatch(subject)) or subject[:1].isupper()


def compare_definitions(a: Claim, b: Claim) -> Hop | None:
    if a.kind not in DEFINITION_KINDS or b.kind not in DEFINITION_KINDS:
        return None
    sa, sb = a.subject, b.subject
    if not (sa and sb and _named(sa) and _named(sb)) or sa.lower() == sb.lower():
        return None
    if bool(_SUBJECT.fullmatch(sa)) != bool(_SUBJECT.fullmatch(sb)):
        return None  # code beside a product name ("`current_app`" and "Click"): not two things of one kind
    if sa.lower() in b.reference.lower() or sb.lower() in a.reference.lower():
        return None  # one definition names the other thing: it may say the difference alone
    first, second = sorted((a, b), key=lambda c: c.subject.lower())  # the order gives nothing away
    question = f"What is the difference between {first.subject} and {second.subject}?"
    return Hop(question, _join(first.reference, second.reference), _blocks(a, b), "compare", (a.reference, b.reference))


def compare_options(a: Claim, b: Claim) -> Hop | None:
    """Two options (settings, parameters, variables) named in code: asked by their kind when both questions name
    it the same way ("the `A` and `B` environment variables")."""
    if a.kind != "option" or b.kind != "option" or a.subject == b.subject:
        return None
    if not (_SUBJECT.fullmatch(a.subject) and _SUBJECT.fullmatch(b.subject)):
        return None
    first, second = sorted((a, b), key=lambda c: c.subject.lower())
    ma, mb = _OPTION.match(a.question), _OPTION.match(b.question)
    if ma is not None and mb is not None and ma.group("noun") == mb.group("noun"):
        noun = ma.group("noun")
        plural = noun if noun.endswith("s") else f"{noun}s"
        question = f"What is the difference between the {first.subject} and {second.subject} {plural}?"
    else:
        question = f"What is the difference between {first.subject} and {second.subject}?"
    answer = _join(first.reference, second.reference)
    return Hop(question, answer, _blocks(a, b), "compare", (a.reference, b.reference))


def bridge(identifying: Claim, fact: Claim, texts: Sequence[str]) -> Hop | None:
    """`identifying` defines `X` as "the ..."; `fact` asks about `X`: ask it with the description instead."""
    subject = identifying.subject
    if identifying.kind not in DEFINITION_KINDS or not _SUBJECT.fullmatch(subject) or identifying.block == fact.block:
        return None
    description = identifying.span.strip().rstrip(".")
    if not re.match(r"(?i)the\s", description) or subject not in fact.question or subject in fact.span:
        return None
    if fact.kind in DEFINITION_KINDS and fact.subject == subject:
        return None  # both define it: nothing to bridge
    if description.lower() in texts[fact.block - 1].lower():
        return None  # the fact's own block says which thing is meant: one block answers
    question = fact.question.replace(subject, "the" + description[3:], 1)
    if question.count("`") % 2:
        return None
    answer = _join(identifying.reference, fact.reference)
    return Hop(question, answer, _blocks(identifying, fact), "bridge", (identifying.reference, fact.reference))
