"""Word documents read by python-docx: "Heading N" / "Title" paragraphs open sections, list paragraphs are items,
table rows are items (first cell the term), other paragraphs prose."""

from __future__ import annotations

from pathlib import Path

from testgen.structure import Block, BlockKind, Section


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
        level = _heading_level(style)
        if level is not None:
            headings = [(lvl, t) for lvl, t in headings if lvl < level] + [(level, text)]
            names = [t for _, t in headings]
            sections.append(Section(tuple(names) if headings[0][0] <= 1 else (root, *names)))
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
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        number = style.removeprefix("Heading ").strip()
        return int(number) if number.isdigit() else None
    return None
