"""HTML read by BeautifulSoup: visible text as today (no scripts, styles), and sections from h1-h6 headings with
paragraphs, list items, definition lists, table rows and `pre` code blocks."""

from __future__ import annotations

from testgen.structure import Block, Section, under_heading

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = ("p", "li", "dt", "dd", "pre", "tr", *_HEADINGS)


def parse_html(text: str, title: str) -> tuple[list[Section], str]:
    """(sections, visible text) of an HTML page; the page's <title> names it when it has no h1."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    for tag in soup.select("a.headerlink"):
        tag.decompose()  # the "¶" permalink Sphinx and MkDocs put in every built heading
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    if soup.title:
        soup.title.decompose()
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    root = page_title or title
    term: str | None = None
    for element in (soup.body or soup).find_all(_BLOCKS):
        if element.find_parent(["pre", "li", "dd", "tr"]) is not None and element.name != "li":
            continue  # read with the block around it
        words = " ".join(element.get_text(" ", strip=True).split())
        if element.name in _HEADINGS:
            path, section = under_heading(path, int(element.name[1]), words, root)
            sections.append(section)
            continue
        if not sections:
            sections.append(Section((root,)))
        if element.name == "pre":
            sections[-1].blocks.append(Block("code", element.get_text()))
        elif element.name == "dt":
            term = words
        elif element.name == "dd":
            sections[-1].blocks.append(Block("item", words, term=term))
            term = None
        elif element.name == "tr":
            cells = [" ".join(c.get_text(" ", strip=True).split()) for c in element.find_all(["td", "th"])]
            if element.find("th") is None and cells:
                rest = "; ".join(cells[1:])
                sections[-1].blocks.append(Block("item", rest or cells[0], term=cells[0] if rest else None))
        elif element.name == "li":
            own = (
                c.get_text(" ", strip=True) if hasattr(c, "get_text") else str(c)
                for c in element.children
                if getattr(c, "name", None) not in ("ul", "ol", "pre")
            )
            sections[-1].blocks.append(Block("item", " ".join(" ".join(own).split())))
        else:
            sections[-1].blocks.append(Block("prose", words))
    visible = (line.strip() for line in soup.get_text("\n").splitlines())
    return [s for s in sections if s.has_text()], "\n".join(line for line in visible if line)
