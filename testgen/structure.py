"""A document's structure as its parser read it: sections with a heading path, each a list of typed blocks.

Loaders (`testgen.loaders`) turn Markdown, reStructuredText, notebooks, HTML and Word files into `Section`s; the
chunker cuts inside a section only (`testgen.chunking`), and the offline writer reads the blocks' kinds back from
the chunk text (`parse_chunk`) so that it writes questions from prose only, never from code or markup.

Chunk text is written in one small, fixed form that `parse_chunk` reads back:

- the first line is the heading path (`Page title > Section > Subsection`), prefixed with `HEADING_MARK`;
- a code block sits between fence lines (```` ``` ````), so contexts still show it, marked as code;
- a list item starts with `ITEM_MARK` ("- "); a definition-list entry or a table row is an item
  "term: description";
- every other line is one paragraph of prose (soft line breaks joined).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

BlockKind = Literal["prose", "code", "item"]
HEADING_MARK = "§ "
PATH_SEPARATOR = " > "
FENCE = "```"
ITEM_MARK = "- "


@dataclass(frozen=True)
class Block:
    """One block of a section: a prose paragraph, a code block, or a list / table / definition-list item.

    `term` is the item's name when the parser knows it (a definition-list term, a table row's first cell, or
    the inline code an item opens with: "`timeout` - the timeout to use")."""

    kind: BlockKind
    text: str
    term: str | None = None

    def render(self) -> str:
        if self.kind == "code":
            return f"{FENCE}\n{self.text.strip(chr(10))}\n{FENCE}"
        if self.kind == "item":
            body = f"{self.term}: {self.text}" if self.term and not self.text.startswith(self.term) else self.text
            return ITEM_MARK + " ".join(body.split())
        return " ".join(self.text.split())


@dataclass
class Section:
    """A heading path (page title first) and the blocks under that heading, before the next heading."""

    path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)

    @property
    def heading(self) -> str:
        return self.path[-1] if self.path else ""

    @property
    def heading_path(self) -> str:
        return PATH_SEPARATOR.join(self.path)

    def has_text(self) -> bool:
        return any(block.text.strip() for block in self.blocks)


def under_heading(
    path: Sequence[tuple[int, str]], level: int, heading: str, title: str
) -> tuple[list[tuple[int, str]], Section]:
    """The (level, heading) path after a heading of `level`, and the section it opens: under the page `title`
    unless the path starts at level 1 (or 0)."""
    opened = [(lvl, text) for lvl, text in path if lvl < level] + [(level, heading)]
    names = tuple(text for _, text in opened)
    return opened, Section(names if opened[0][0] <= 1 else (title, *names))


def sections_record(sections: Sequence[Section]) -> list[dict[str, Any]]:
    """Sections as plain JSON data, the form a document's metadata keeps them in (it travels through JSON, e.g. to
    the workers of a distributed ingest): [{"path": [...], "blocks": [{"kind", "text", "term"}]}]."""
    return [
        {"path": list(s.path), "blocks": [{"kind": b.kind, "text": b.text, "term": b.term} for b in s.blocks]}
        for s in sections
    ]


def sections_of(metadata: Mapping[str, Any]) -> list[Section]:
    """The sections a document's metadata holds (`sections_record`'s form)."""
    return [
        Section(tuple(item["path"]), [Block(**block) for block in item["blocks"]])
        for item in metadata.get("sections") or []
    ]


def sections_text(sections: Sequence[Section], untitled: str | None = None) -> str:
    """The document's whole text: each section's heading line, then its blocks (what is hashed and detected). A
    section whose path is only `untitled` (the title made from a file name) has no heading line."""
    parts: list[str] = []
    for section in sections:
        if section.path and section.path != (untitled,):
            parts.append(section.heading)
        parts.extend(block.render() for block in section.blocks if block.text.strip())
    return "\n\n".join(parts)


@dataclass(frozen=True)
class ChunkLine:
    """A line of chunk text read back as what it was: its kind, text (markers removed) and item term."""

    kind: Literal["heading", "prose", "code", "item"]
    text: str
    term: str | None = None


def parse_chunk(text: str) -> list[ChunkLine]:
    """The lines of a chunk written by `render_chunk`, each with its kind. A chunk cut inside a code block by the
    splitter starts or ends without its fence: a line after an unmatched opening fence is code to the end."""
    lines: list[ChunkLine] = []
    in_code = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip() == FENCE:
            in_code = not in_code
            continue
        if in_code:
            lines.append(ChunkLine("code", line))
        elif not line.strip():
            continue
        elif line.startswith(HEADING_MARK) and not lines:
            lines.append(ChunkLine("heading", line.removeprefix(HEADING_MARK).strip()))
        elif line.startswith(ITEM_MARK):
            body = line.removeprefix(ITEM_MARK).strip()
            term, sep, _ = body.partition(": ")
            lines.append(ChunkLine("item", body, term if sep and len(term.split()) <= 4 else None))
        else:
            lines.append(ChunkLine("prose", line.strip()))
    return lines


def prose_lines(text: str) -> Iterator[str]:
    """The prose paragraphs and item texts of a chunk: what sentence rules may read (no heading, no code)."""
    return (line.text for line in parse_chunk(text) if line.kind in ("prose", "item"))


#: How a chunk's text is embedded (part of a corpus collection's name, so that vectors of another form are never
#: mixed in): the heading line keeps only the section's own heading.
EMBEDDING_FORM = "leaf-heading"


def embedding_text(text: str) -> str:
    """The text whose vector stands for a chunk: the section's own heading and the chunk's lines without the
    chunk form's marks (no fence lines, no item dashes): "§ Patterns for Flask > Adding a favicon" reads
    "Adding a favicon". The page title and parent sections, in every chunk of a page, would pull a page's chunks
    together and away from a question about one section (docs/history.md). Text without the heading mark (plain
    text, Wikipedia) is embedded as it is."""
    if not text.startswith(HEADING_MARK):
        return text
    lines = [ln.text.split(PATH_SEPARATOR)[-1].strip() if ln.kind == "heading" else ln.text for ln in parse_chunk(text)]
    return "\n".join(lines).replace("“", "").replace("”", "")


def heading_line(path: str) -> str:
    return f"{HEADING_MARK}{path}"


#: Table columns that say what the row's first cell is: their text leads the row's item.
_DESCRIPTION_COLUMNS = frozenset({"description", "meaning", "purpose", "explanation", "details", "summary", "effect"})


def row_block(header: Sequence[str], cells: Sequence[str]) -> Block | None:
    """A table row as an item (None for an empty row): a lone cell as it is; else the first cell names the others
    (`table_row_text`, with the `header` row's column names when it has as many cells)."""
    if not any(cells):
        return None
    if len(cells) == 1:
        return Block("item", cells[0])
    names = header[1:] if len(header) == len(cells) else []
    return Block("item", table_row_text(names, cells[1:]), term=cells[0] or None)


def table_row_text(names: Sequence[str], cells: Sequence[str]) -> str:
    """The text of a table row after its first cell, as one item: a lone cell as it is; else each cell with its
    column's name ("Default: 5; Type: int"), the description column first when the table has one (so that an
    option's row reads "Whether to ...; Default: false")."""
    if len(cells) == 1:
        return cells[0]
    pairs = list(zip([*names, *[""] * len(cells)][: len(cells)], cells, strict=True))
    if first := next((pair for pair in pairs if pair[0].strip().lower() in _DESCRIPTION_COLUMNS and pair[1]), None):
        others = [f"{name}: {cell}" if name else cell for name, cell in pairs if (name, cell) != first and cell]
        description = first[1].strip().rstrip(";")
        if not others:
            return description
        return f"{description}{'' if description.endswith(('.', '!', '?')) else '.'} {'; '.join(others)}"
    return "; ".join(f"{name}: {cell}" if name else cell for name, cell in pairs)
