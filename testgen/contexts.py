"""Contexts for question writing: a root chunk plus its K nearest neighbours, shown as numbered blocks.

Roots are drawn in a seeded order stratified by document and section (`draw_roots`); neighbours that mostly repeat
the root (itself, the adjacent chunk of its document, or more than half of its words) are left out.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ragtest_core.text import detect_language, tokenize
from testgen.chunking import Chunk
from testgen.settings import DEFAULT_K_NEIGHBOURS
from testgen.store import ChunkKey, ChunkStore

if TYPE_CHECKING:  # annotations only
    from testgen.personas import Persona

MAX_TEXT_OVERLAP = 0.5
_EXTRA_CANDIDATES = 6


#: Where a chunk sits: a `Chunk`, or a `ChunkKey` (the same without its text).
P = TypeVar("P", Chunk, ChunkKey)


@dataclass(frozen=True)
class Context:
    """The root chunk and its neighbours. Block numbers start at 1 (the root); `persona`: who the questions are
    written for (`testgen.personas`), when personas are given."""

    root: Chunk
    neighbours: tuple[Chunk, ...] = ()
    #: True when the neighbours are the root's partners in the corpus graph (other sections: `testgen.graph`).
    along_graph: bool = False
    persona: Persona | None = None

    @property
    def blocks(self) -> list[Chunk]:
        return [self.root, *self.neighbours]

    @property
    def language(self) -> str:
        return self.root.language or detect_language(self.root.text)

    def render(self) -> str:
        """`[1] root text`, `[2] neighbour text`, ... separated by blank lines."""
        return "\n\n".join(f"[{number}] {chunk.text}" for number, chunk in enumerate(self.blocks, start=1))

    def block(self, number: int) -> Chunk | None:
        """The chunk shown as `[number]`, or None when out of range."""
        return self.blocks[number - 1] if 1 <= number <= len(self.blocks) else None


def draw_roots(chunks: Sequence[P], seed: int) -> list[P]:
    """Every chunk once, in a seeded order stratified by document and, inside a document, by section.

    Documents take turns (round-robin); each document's turn takes its sections in turn, so a long document's
    early roots spread over its sections instead of clustering in one. Only ids, documents, sections and
    positions are read: `ChunkKey`s (no texts) draw the same order as their chunks.
    """
    rng = random.Random(seed)
    by_doc: dict[str, list[P]] = {}
    for chunk in sorted(chunks, key=lambda c: (c.doc_id, c.position, c.chunk_id)):
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    doc_ids = sorted(by_doc)
    rng.shuffle(doc_ids)
    return _interleave([_by_section(by_doc[doc_id], rng) for doc_id in doc_ids])


def _by_section(chunks: list[P], rng: random.Random) -> list[P]:
    """One document's chunks, sections taken in turn (seeded order within and across sections)."""
    sections: dict[str, list[P]] = {}
    for chunk in chunks:
        sections.setdefault(chunk.section or "", []).append(chunk)
    names = sorted(sections)
    rng.shuffle(names)
    for name in names:
        rng.shuffle(sections[name])
    return _interleave([sections[name] for name in names])


def _interleave(queues: list[list[P]]) -> list[P]:
    """Round robin over the queues: the first of each, then the second of each, ..."""
    return [item for row in itertools.zip_longest(*queues) for item in row if item is not None]


def text_overlap(left: str, right: str) -> float:
    """Share of the shorter text's words that the other text also has (multiset overlap)."""
    a, b = Counter(tokenize(left)), Counter(tokenize(right))
    shorter = min(a.total(), b.total())
    return (a & b).total() / shorter if shorter else 0.0


def is_near_duplicate(root: Chunk, other: Chunk) -> bool:
    """The root itself, its adjacent chunk in the same document, or a chunk sharing most of its words."""
    if other.chunk_id == root.chunk_id:
        return True
    if other.doc_id == root.doc_id and abs(other.position - root.position) <= 1:
        return True
    return text_overlap(root.text, other.text) > MAX_TEXT_OVERLAP


def build_contexts(
    store: ChunkStore, roots: Sequence[Chunk], k_neighbours: int = DEFAULT_K_NEIGHBOURS
) -> list[Context]:
    """One context per root, with up to `k_neighbours` neighbours from a single batched store query."""
    if k_neighbours <= 0:
        return [Context(root=root) for root in roots]
    hits = store.neighbours_of([root.chunk_id for root in roots], k=k_neighbours + _EXTRA_CANDIDATES)
    contexts = []
    for root, row in zip(roots, hits, strict=True):
        neighbours: list[Chunk] = []
        for hit in row:
            chunk = Chunk.from_record(hit.id, hit.text, hit.metadata)
            if is_near_duplicate(root, chunk) or any(is_near_duplicate(n, chunk) for n in neighbours):
                continue
            neighbours.append(chunk)
            if len(neighbours) == k_neighbours:
                break
        contexts.append(Context(root=root, neighbours=tuple(neighbours)))
    return contexts
