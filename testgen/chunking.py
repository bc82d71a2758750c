"""Documents cut into overlapping chunks with ids that stay the same from run to run.

LangChain's `RecursiveCharacterTextSplitter` does the cutting. The configured separators (by default sentence
ends and line breaks) are tried first, then " " and "" so that text without any separator is still cut to
`chunk_size`. A chunk id is a hash of the document id, the chunk's position and its text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter
from pydantic import BaseModel, ConfigDict

from ragtest_core.schema import stable_id
from ragtest_core.text import detect_language

FALLBACK_SEPARATORS: tuple[str, ...] = (" ", "")
_WIKI_HEADING = re.compile(r"^\s*=+\s*(?P<title>[^=]+?)\s*=+\s*$")
_PLAIN_HEADING = re.compile(r"^[A-Z][^.!?:;,=\[\]()]{0,60}$")


@dataclass(frozen=True)
class ChunkingConfig:
    """How documents are cut. `separators` are tried in order before the fallbacks " " and ""."""

    chunk_size: int = 512
    chunk_overlap: int = 128
    separators: tuple[str, ...] = (". ", "\n")
    keep_separator: Literal["start", "end"] | bool = "end"

    def all_separators(self) -> list[str]:
        seps = list(self.separators)
        return seps + [s for s in FALLBACK_SEPARATORS if s not in seps]


class Chunk(BaseModel):
    """One piece of a document, as stored in the vector store and cited as a gold context."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    text: str
    doc_id: str
    source: str
    position: int
    url: str | None = None
    revision_id: str | None = None
    language: str = "en"
    section: str | None = None

    def to_metadata(self) -> dict[str, str | int]:
        """Chroma metadata: everything but the id and text, without None values."""
        data = self.model_dump(exclude={"chunk_id", "text"})
        return {key: value for key, value in data.items() if value is not None}

    @classmethod
    def from_record(cls, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> Chunk:
        fields = {key: metadata.get(key) for key in ("url", "revision_id", "section")}
        return cls(
            chunk_id=chunk_id,
            text=text,
            doc_id=str(metadata.get("doc_id", "")),
            source=str(metadata.get("source", "")),
            position=int(metadata.get("position", 0)),
            language=str(metadata.get("language", "en")),
            **{key: (str(value) if value is not None else None) for key, value in fields.items()},
        )


def make_splitter(config: ChunkingConfig) -> RecursiveCharacterTextSplitter:
    return RecursiveCharacterTextSplitter(
        chunk_size=config.chunk_size,
        chunk_overlap=config.chunk_overlap,
        separators=config.all_separators(),
        keep_separator=config.keep_separator,
        add_start_index=True,
        strip_whitespace=True,
    )


def chunk_id_for(doc_id: str, position: int, text: str) -> str:
    return stable_id(doc_id, str(position), stable_id(text, length=16))


def chunk_documents(documents: Iterable[Document], config: ChunkingConfig | None = None) -> list[Chunk]:
    """Chunks of every document, in document order then position order."""
    config = config or ChunkingConfig()
    splitter = make_splitter(config)
    chunks: list[Chunk] = []
    for document in documents:
        chunks.extend(chunk_document(document, splitter))
    return chunks


def chunk_document(document: Document, splitter: RecursiveCharacterTextSplitter) -> list[Chunk]:
    meta = document.metadata
    source = str(meta.get("source", ""))
    doc_id = str(meta.get("doc_id") or stable_id(source))
    revision = meta.get("revision_id")
    url = meta.get("url")
    headings = find_headings(document.page_content)
    pieces = splitter.create_documents([document.page_content])
    chunks = []
    for position, piece in enumerate(pieces):
        text = piece.page_content
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(doc_id, position, text),
                text=text,
                doc_id=doc_id,
                source=source,
                position=position,
                url=str(url) if url else None,
                revision_id=str(revision) if revision is not None else None,
                language=str(meta.get("language") or detect_language(text)),
                section=section_at(headings, int(piece.metadata.get("start_index", -1))),
            )
        )
    return chunks


def find_headings(text: str) -> list[tuple[int, str]]:
    """(offset, title) of headings: `== Title ==` lines, or short unpunctuated lines after a blank line."""
    headings: list[tuple[int, str]] = []
    offset = 0
    previous_blank = True
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        wiki = _WIKI_HEADING.match(stripped)
        if wiki:
            headings.append((offset, wiki.group("title")))
        elif previous_blank and stripped and _PLAIN_HEADING.match(stripped) and len(stripped.split()) <= 6:
            headings.append((offset, stripped))
        previous_blank = not stripped
        offset += len(line)
    return headings


def section_at(headings: Sequence[tuple[int, str]], start: int) -> str | None:
    """The last heading at or before `start` (None before the first heading or when unknown)."""
    if start < 0 or not headings:
        return None
    index = bisect.bisect_right([offset for offset, _ in headings], start) - 1
    return headings[index][1] if index >= 0 else None
