"""Word documents read by python-docx: "Heading N" / "Title" paragraphs open sections, list paragraphs are items,
table rows are items (first cell the term), other paragraphs prose."""

from __future__ import annotations

from pathlib import Path

from testgen.structure import Block, BlockKind, Section, under_heading


def parse_docx(path: Path, title: str) -> list[Section]:
    import docx

    document = docx.Document(str(path))
    sections: list[Section] = []
    headings: list[tuple[int, str]] = []
    root = (document.core_properties.title or "").strip() or title
    for paragraph in document.paragraphs:
        text = " ".join(paragraph.text.split())
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if not text:
            continue
        if (level := _heading_level(style)) is not None:
            headings, section = under_heading(headings, level, text, root)
            sections.append(section)
            continue
        if not sections:
            sections.append(Section((root,)))
        kind: BlockKind = "item" if style.startswith("List") else "prose"
        sections[-1].blocks.append(Block(kind, text))
    for table in document.tables:
        if not sections:
            sections.append(Section((root,)))
        for row in table.rows[1:]:
            cells = [" ".join(cell.text.split()) for cell in row.cells]
            if any(cells):
                rest = "; ".join(c for c in cells[1:] if c)
                sections[-1].blocks.append(Block("item", rest or cells[0], term=cells[0] if rest else None))
    return [s for s in sections if s.has_text()]


def _heading_level(style: str) -> int | None:
    """1 for "Title", N for "Heading N", None for other styles."""
    number = style.removeprefix("Heading ").strip()
    return 1 if style == "Title" else int(number) if style.startswith("Heading ") and number.isdigit() else None
