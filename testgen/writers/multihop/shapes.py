"""Multi-hop shapes over the claims of two blocks from different sections (block 1 is the root).

- `compare_definitions`: two definitions of named things of one kind -> "How do `h11` and `httpcore` differ?"; the
  reference gives both definitions;
- `compare_options`: two options named in code -> "How do the `NO_PROXY` and `SSL_CERT_FILE` environment variables
  differ?" (their kind said when both questions name it the same way);
- `bridge`: block A defines an identifier as "the ..." ("`httpcore` is the underlying transport implementation for
  `httpx`"), block B asks about that identifier; the question names it by A's description only, so A says which
  thing is meant and B what is asked. Not written when B's own text already holds the description.

Every shape cites both blocks; the screen's critic then rejects any draft that one of its blocks answers alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from testgen.structure import PATH_SEPARATOR
from testgen.writers.base import Draft

DEFINITION_KINDS = frozenset({"concept", "definition"})
_OPTION = re.compile(r"^What does the (?P<subj>`[^`]+`) (?P<noun>[\w -]+?) (?:control|do|set|mean|specify)\?$")
_SUBJECT = re.compile(r"`[^`]+`")
#: Words after a definition's head noun ("a WSGI server *with* ...", "a proxy *to* ...").
_QUALIFIER = re.compile(r"\b(?:with|for|of|that|which|who|whose|to|on|in|from|by|based|integrated|used|where)\b")


@dataclass(frozen=True)
class Claim:
    """A fact of one block: the question it answers, its short answer, its reference sentence and its kind
    ("concept", "option", "definition", ...); `subject` is what it is about ("" when unknown); `heading`: the
    heading path of the block's section (a subject that heads its own section names one thing: "nginx")."""

    block: int
    question: str
    span: str
    reference: str
    kind: str
    subject: str = ""
    heading: str = ""


def pairable(claim: Claim) -> bool:
    """Whether a claim can take part in a shape: a definition or an option of a named thing, or a fact about an
    identifier (a bridge's second hop)."""
    return _named(claim) if claim.kind in DEFINITION_KINDS | {"option"} else bool(_SUBJECT.search(claim.question))


def hop_drafts(claims: Sequence[Claim], texts: Sequence[str], max_words: int) -> list[Draft]:
    """Every multi-hop draft from claims of the root (block 1) and of another block (`texts`: each block's text,
    block 1 first), questions of at most `max_words` words, each question once."""
    pairs = [(a, b) for a in claims if a.block == 1 for b in claims if b.block != 1]
    hops = (
        h
        for a, b in pairs
        for h in (compare_definitions(a, b), compare_options(a, b), bridge(a, b, texts), bridge(b, a, texts))
    )
    made: dict[str, Draft] = {}
    for hop in hops:
        if hop is not None and len(hop.question.split()) <= max_words:
            made.setdefault(hop.question.lower(), hop)
    return list(made.values())


def _hop(question: str, shape: str, a: Claim, b: Claim, answer: tuple[Claim, Claim]) -> Draft:
    """The draft of a `shape` question over claims `a` and `b` (its evidence, in that order), answered by the
    references of `answer`'s claims, in that order."""
    said = " ".join(dict.fromkeys(c.reference.strip() for c in answer if c.reference.strip()))
    blocks, evidence = tuple(sorted({a.block, b.block})), (a.reference, b.reference)
    return Draft(question, said, blocks, "multi_context", evidence=evidence, strategy=f"multihop_{shape}")


def _named(claim: Claim) -> bool:
    """A subject that names one thing: inline code, a capitalised name, or the heading of its own section."""
    return bool(_SUBJECT.fullmatch(claim.subject)) or claim.subject[:1].isupper() or _heads(claim)


def _heads(claim: Claim) -> bool:
    """Whether the claim's subject is the heading of its own section."""
    return claim.subject != "" and claim.subject.lower() == claim.heading.split(PATH_SEPARATOR)[-1].strip().lower()


def _one_kind(a: Claim, b: Claim) -> bool:
    """Two things of one kind: their definitions end in one head noun ("a ... server"), or they head sibling
    sections ("Plugins > Hishel", "Plugins > httpx-sse")."""
    parent = a.heading.rpartition(PATH_SEPARATOR)[0]
    if parent and parent == b.heading.rpartition(PATH_SEPARATOR)[0] and _heads(a) and _heads(b):
        return True
    return kind_of(a.span) != "" and kind_of(a.span) == kind_of(b.span)


def kind_of(definition: str) -> str:
    """The head noun of a definition, singular: "a pure Python WSGI server with ..." -> "server"."""
    words = re.findall(r"[\w-]+", _QUALIFIER.split(definition)[0])
    return words[-1].lower().removesuffix("s") if words else ""


def compare_definitions(a: Claim, b: Claim) -> Draft | None:
    if a.kind not in DEFINITION_KINDS or b.kind not in DEFINITION_KINDS:
        return None
    sa, sb = a.subject, b.subject
    if not (_named(a) and _named(b)) or sa.lower() == sb.lower() or a.span.lower() == b.span.lower():
        return None  # the same thing, or two things the docs describe alike: no difference to ask about
    if not _one_kind(a, b):
        return None  # "a WSGI server" beside "a template language": not two things of one kind
    if bool(_SUBJECT.fullmatch(sa)) != bool(_SUBJECT.fullmatch(sb)):
        return None  # code beside a product name ("`current_app`" and "Click"): not two things of one kind
    if sa.lower() in b.reference.lower() or sb.lower() in a.reference.lower():
        return None  # one definition names the other thing: it may say the difference alone
    first, second = sorted((a, b), key=lambda c: c.subject.lower())  # the order gives nothing away
    return _hop(f"How do {_both(first.subject, second.subject)} differ?", "compare", a, b, (first, second))


def _both(x: str, y: str) -> str:
    """Two names, their shared last words said once: "HTTP basic and digest authentication"."""
    xs, ys = x.split(), y.split()
    shared = 0
    while shared < min(len(xs), len(ys)) - 1 and xs[-1 - shared] == ys[-1 - shared]:
        shared += 1
    if not shared:
        return f"{x} and {y}"
    rest = ys[:-shared]
    while len(rest) > 1 and xs[0] == rest[0]:
        rest = rest[1:]  # "HTTP basic and HTTP digest" -> "HTTP basic and digest"
    return " ".join([*xs[:-shared], "and", *rest, *xs[-shared:]])


def compare_options(a: Claim, b: Claim) -> Draft | None:
    if a.kind != "option" or b.kind != "option" or a.subject == b.subject:
        return None
    if not (_SUBJECT.fullmatch(a.subject) and _SUBJECT.fullmatch(b.subject)):
        return None
    first, second = sorted((a, b), key=lambda c: c.subject.lower())
    ma, mb = _OPTION.match(a.question), _OPTION.match(b.question)
    kind = ma.group("noun") if ma and mb and ma.group("noun") == mb.group("noun") else ""  # said when both say it
    the, kinds = ("the ", f" {kind.removesuffix('s')}s") if kind else ("", "")
    return _hop(f"How do {the}{first.subject} and {second.subject}{kinds} differ?", "compare", a, b, (first, second))


def bridge(identifying: Claim, fact: Claim, texts: Sequence[str]) -> Draft | None:
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
    return None if question.count("`") % 2 else _hop(question, "bridge", identifying, fact, (identifying, fact))
