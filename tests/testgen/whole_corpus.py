"""The offline writer taught from chunks held in memory: what `ExtractiveWriter.learn` learns from a store (each
document's casing from all of its chunks, the documentation's headings and how many of its pages use a phrase)."""

from __future__ import annotations

from collections.abc import Sequence

from testgen.chunking import Chunk
from testgen.store import ChunkStore
from testgen.structure import prose_lines
from testgen.writers.docs.sentence_checks import PageIndex, heading_parts
from testgen.writers.extractive import ExtractiveWriter, _casing


def prepare(writer: ExtractiveWriter, chunks: Sequence[Chunk]) -> None:
    """Teach `writer` the corpus `chunks` (a page's prose, code and markup left out, counts the phrases it uses)."""
    texts: dict[str, list[Chunk]] = {}
    headings: set[str] = set()
    prose: dict[str, list[str]] = {}
    for chunk in chunks:
        texts.setdefault(chunk.doc_id, []).append(chunk)
        if chunk.heading_path is not None:
            headings.update(part.lower() for part in heading_parts(chunk))
            prose.setdefault(chunk.doc_id, []).append(" ".join(prose_lines(chunk.text)).lower())
    pages = [" ".join(parts) for parts in prose.values()]

    def count_pages(phrase: str) -> int:
        return sum(1 for text in pages if phrase.lower() in f" {text} ")

    writer._doc_casing = {doc_id: _casing(parts) for doc_id, parts in texts.items()}.get
    writer._pages = PageIndex(frozenset(headings), count_pages, len(pages))


def all_chunks(store: ChunkStore) -> list[Chunk]:
    """Every stored chunk, in `chunk_keys` order (the whole corpus in memory: for small stores)."""
    return store.get([key.chunk_id for key in store.chunk_keys()])
