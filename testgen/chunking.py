"""Documents cut into overlapping chunks with ids that stay the same from run to run.

LangChain's `RecursiveCharacterTextSplitter` does the cutting. The configured separators (by default sentence
ends and line breaks) are tried first, then " " and "" so that text without any separator is still cut to
`chunk_size`. A chunk id is a hash of the document id, the chunk's position and its text.

A document with sections (`metadata["sections"]`, from the structured loaders) is cut section by section: no chunk
runs across a heading. Each chunk starts with its heading path line and carries the path in `heading_path`;
`section_part` is 0 for the chunk that opens its section. Code blocks stay whole where they fit (fenced, so the
writer knows them); short blocks of one section share a chunk.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any

from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter
from pydantic import BaseModel, ConfigDict, Field

from ragtest_core.schema import stable_id
from ragtest_core.text import detect_language
from testgen.structure import Section, heading_line, sections_of

FALLBACK_SEPARATORS: tuple[str, ...] = (" ", "")
_WIKI_HEADING = re.compile(r"^\s*=+\s*(?P<title>[^=]+?)\s*=+\s*$")
_PLAIN_HEADING = re.compile(r"^[A-Z][^.!?:;,=\[\]()]{0,60}$")


class ChunkingConfig(BaseModel):
    """How documents are cut. `separators` are tried in order before the fallbacks " " and ""."""

    model_config = ConfigDict(frozen=True)

    chunk_size: Annotated[int, Field(ge=1, description="characters per chunk at most")] = 512
    chunk_overlap: Annotated[int, Field(ge=0, description="characters neighbouring chunks share")] = 128
    separators: Annotated[
        tuple[str, ...],
        Field(description="where chunks may be cut, tried in order (backslash escapes such as \\n work)"),
    ] = (". ", "\n")


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
    #: "Page title > Section > Subsection" for chunks of structured documents.
    heading_path: str | None = None
    #: 0 for the chunk that opens its section, 1 for the next, ... (structured documents only).
    section_part: int | None = None

    def to_metadata(self) -> dict[str, str | int]:
        """Chroma metadata: everything but the id and text, without None values."""
        data = self.model_dump(exclude={"chunk_id", "text"})
        return {key: value for key, value in data.items() if value is not None}

    @classmethod
    def from_record(cls, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> Chunk:
        """The chunk stored with this id, text and metadata (`to_metadata`)."""
        return cls(chunk_id=chunk_id, text=text, **metadata)


def chunk_id_for(doc_id: str, position: int, text: str) -> str:
    return stable_id(doc_id, str(position), stable_id(text, length=16))


def chunk_documents(documents: Iterable[Document], config: ChunkingConfig | None = None) -> list[Chunk]:
    """Chunks of every document, in document order then position order."""
    config = config or ChunkingConfig()
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=config.chunk_size,
        chunk_overlap=config.chunk_overlap,
        separators=[*config.separators, *(s for s in FALLBACK_SEPARATORS if s not in config.separators)],
        keep_separator="end",
        add_start_index=True,
        strip_whitespace=True,
    )
    return [chunk for document in documents for chunk in chunk_document(document, splitter)]


def chunk_document(document: Document, splitter: RecursiveCharacterTextSplitter) -> list[Chunk]:
    if document.metadata.get("sections"):
        return chunk_sections(document, splitter)
    meta = document.metadata
    headings = find_headings(document.page_content)
    return [
        _chunk(
            meta,
            position,
            piece.page_content,
            language=str(meta.get("language") or detect_language(piece.page_content)),
            section=section_at(headings, int(piece.metadata.get("start_index", -1))),
        )
        for position, piece in enumerate(splitter.create_documents([document.page_content]))
    ]


def _chunk(metadata: Mapping[str, Any], position: int, text: str, **fields: Any) -> Chunk:
    """The chunk at `position` of the document with this metadata (its id hashes the document, position and text)."""
    source = str(metadata.get("source", ""))
    doc_id = str(metadata.get("doc_id") or stable_id(source))
    revision, url = metadata.get("revision_id"), metadata.get("url")
    return Chunk(
        chunk_id=chunk_id_for(doc_id, position, text),
        text=text,
        doc_id=doc_id,
        source=source,
        position=position,
        url=str(url) if url else None,
        revision_id=str(revision) if revision is not None else None,
        **fields,
    )


def find_headings(text: str) -> list[tuple[int, str]]:
    """(offset, title) of headings: `== Title ==` lines, or short unpunctuated lines after a blank line."""
    headings: list[tuple[int, str]] = []
    offset = 0
    previous_blank = True
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if wiki := _WIKI_HEADING.match(stripped):
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


def chunk_sections(document: Document, splitter: RecursiveCharacterTextSplitter) -> list[Chunk]:
    """Chunks of a structured document: inside each section, each starting with the section's heading path."""
    meta = document.metadata
    language = str(meta.get("language") or detect_language(document.page_content))
    chunks: list[Chunk] = []
    for section in sections_of(meta):
        for part, body in enumerate(section_pieces(section, splitter)):
            text = f"{heading_line(section.heading_path)}\n{body}"
            place = {"section": section.heading or None, "heading_path": section.heading_path, "section_part": part}
            chunks.append(_chunk(meta, len(chunks), text, language=language, **place))
    return chunks


def section_pieces(section: Section, splitter: RecursiveCharacterTextSplitter) -> list[str]:
    """The bodies of one section's chunks: runs of prose and items cut by the splitter, code blocks whole where
    they fit (else cut at line ends, each piece fenced again), neighbouring short units packed together."""
    size = splitter._chunk_size - len(heading_line(section.heading_path)) - 1
    size = max(size, splitter._chunk_size // 2)
    small = RecursiveCharacterTextSplitter(  # a splitter like `splitter` that cuts to `size`
        chunk_size=size,
        chunk_overlap=min(splitter._chunk_overlap, size // 4),
        separators=splitter._separators,
        keep_separator=splitter._keep_separator,
        strip_whitespace=True,
    )
    units: list[tuple[str, int]] = []  # (text, run): pieces of one split run overlap, so they never share a chunk
    lines: list[str] = []

    def flush() -> None:
        if lines:
            text = "\n".join(lines)
            pieces = [text] if len(text) <= size else small.split_text(text)
            run = len(units) if len(pieces) > 1 else -1
            units.extend((piece, run) for piece in pieces)
            lines.clear()

    for block in section.blocks:
        if block.kind == "code":
            flush()
            units.extend((piece, -1) for piece in code_pieces(block.render(), size))
        else:
            lines.append(block.render())
    flush()
    bodies: list[str] = []
    last_run = -2
    for text, run in units:
        if bodies and (run == -1 or run != last_run) and len(bodies[-1]) + 1 + len(text) <= size:
            bodies[-1] = f"{bodies[-1]}\n{text}"
        else:
            bodies.append(text)
        last_run = run
    return bodies


def code_pieces(fenced: str, size: int) -> list[str]:
    """A fenced code block, whole when it fits in `size`, else cut at line ends into fenced pieces."""
    if len(fenced) <= size:
        return [fenced]
    lines = fenced.splitlines()[1:-1]
    pieces: list[str] = []
    current: list[str] = []
    for line in lines:
        line = line[: size - 10]
        if current and sum(len(x) + 1 for x in current) + len(line) + 8 > size:
            pieces.append("\n".join(["```", *current, "```"]))
            current = []
        current.append(line)
    if current:
        pieces.append("\n".join(["```", *current, "```"]))
    return pieces
