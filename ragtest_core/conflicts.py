"""Key-token conflicts: a claim that names a different entity, number, date or place than its evidence does for
the same slot. This is what neither word overlap nor a sentence embedding sees (all-MiniLM-L6-v2 gives "aired on
NBC" / "aired on Fox" a cosine near 0.9; overlap misses one word in ten).

For each key token k of the claim (see `ragtest_core.textunits`), against the best lexical window W* of the
evidence:

- slot conflict: k is not in W*, a content word within `anchor_reach` content words of k in the claim (not part
  of k's own name) is in W*, and within `slot_reach` content words of that anchor, on the same side, W* states a
  different key token of k's kind that neither the claim nor the question contains (for names: one whose
  capitalised span shares no word with k's span, so "Catherine Marie Cortez Masto" is a variant, not a rival).
  "Attorney General of California" vs "... Attorney General of Nevada": anchor "General", rival "Nevada".
- sentence conflict: k is found nowhere in the evidence and W* holds a different key token of its kind that
  neither the claim nor the question contains, but not in k's slot (a weaker signal).
- present-slot conflict: k is in W*, but W*'s slot next to k's anchor holds a different token of k's kind and not
  k (an internal swap: "Kroeger" for "Nickelback", both named by the passage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragtest_core.textunits import NAME, Unit, Word


@dataclass(frozen=True)
class Conflict:
    """A key token of the claim and the rival the evidence states instead."""

    claim_token: str
    kind: str
    competitor: str
    #: True for a slot conflict (the rival sits where the claim's token would), False for a sentence conflict.
    anchored: bool
    #: True when the claim's token is itself in the window (a present-slot conflict).
    present: bool = False


def _span_keys(unit: Unit, span: int) -> set[str]:
    return {w.key for w in unit.words if span >= 0 and w.span == span}


def _anchors(claim: Unit, position: int, window_keys: frozenset[str], reach: int) -> list[tuple[str, int]]:
    """(anchor key, direction) pairs: the nearest content word on each side of the claim token that the window
    contains; direction +1 means the token's slot is after the anchor, -1 before it."""
    target = claim.words[position]
    content = claim.content_positions
    index = content.index(position)
    anchors: list[tuple[str, int]] = []
    for step, direction in ((-1, +1), (+1, -1)):
        for hop in range(1, reach + 1):
            j = index + step * hop
            if j < 0 or j >= len(content):
                break
            word = claim.words[content[j]]
            if word.span >= 0 and word.span == target.span:
                continue  # the rest of the same name is not an anchor for its slot
            if word.key in window_keys:
                anchors.append((word.key, direction))
                break
    return anchors


def _is_rival(candidate: Word, unit: Unit, target: Word, excluded: frozenset[str], claim_span: set[str]) -> bool:
    if candidate.kind != target.kind or candidate.key in excluded:
        return False
    return not (candidate.kind == NAME and _span_keys(unit, candidate.span) & claim_span)


def slot_competitors(
    claim: Unit, position: int, window: Sequence[Unit], excluded: frozenset[str], anchor_reach: int, slot_reach: int
) -> tuple[list[str], bool]:
    """Rival key tokens that the window states in the claim token's slot, and whether the claim's own token also
    sits in such a slot."""
    target = claim.words[position]
    claim_span = _span_keys(claim, target.span)
    window_keys = frozenset(k for u in window for k in u.keys)
    found: list[str] = []
    own = False
    anchors = _anchors(claim, position, window_keys, anchor_reach)
    for unit in window:
        for anchor, direction in anchors:
            positions = unit.content_positions
            for k, p in enumerate(positions):
                if unit.words[p].key != anchor:
                    continue
                for hop in range(1, slot_reach + 1):
                    q = k + direction * hop
                    if q < 0 or q >= len(positions):
                        break
                    candidate = unit.words[positions[q]]
                    own = own or candidate.key == target.key
                    if _is_rival(candidate, unit, target, excluded, claim_span):
                        found.append(candidate.text)
    return list(dict.fromkeys(found)), own


def find_conflicts(
    claim: Unit,
    window: Sequence[Unit],
    evidence_keys: frozenset[str],
    question_keys: frozenset[str],
    anchor_reach: int,
    slot_reach: int,
    check_present: bool = True,
) -> list[Conflict]:
    """The conflicts of the claim's key tokens against the window W* (see the module docstring; a name of several
    words conflicts once)."""
    window_keys = frozenset(k for u in window for k in u.keys)
    excluded = claim.keys | question_keys
    conflicts: list[Conflict] = []
    seen: set[str] = set()
    spans: set[int] = set()
    for position, word in enumerate(claim.words):
        if word.kind is None or word.key in seen or word.span in spans:
            continue
        seen.add(word.key)
        present = word.key in window_keys
        if present and not check_present:
            continue
        slot, own = slot_competitors(claim, position, window, excluded, anchor_reach, slot_reach)
        rival = None
        if present or slot:
            rival = slot[0] if slot and not (present and own) else None
        elif word.key not in evidence_keys:
            rivals = (w.text for u in window for w in u.words if w.kind == word.kind and w.key not in excluded)
            rival = next(rivals, None)
        if rival is not None:
            conflicts.append(Conflict(word.text, word.kind, rival, present or bool(slot), present=present))
            if word.span >= 0:
                spans.add(word.span)
    return conflicts
