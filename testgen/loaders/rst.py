"""reStructuredText read by docutils, tolerating the Sphinx directives and roles it does not know.

docutils parses the page into a doctree; `sphinx_compat` supplies what Sphinx would: code directives become literal
blocks, object descriptions (`.. data:: SECRET_KEY`, `.. function:: url_for`) become definition items, version notes
and tabs keep their text, and directives that pull text from elsewhere (`autoclass`, `toctree`, `include`) are
dropped and counted. Any other unknown directive keeps its content; unknown roles keep their text as inline code
(`:func:`url_for`` -> `url_for()`) or as words (`:doc:`Installation <installation>`` -> Installation). Nothing
is reported, nothing halts: a page that docutils cannot read at all raises, and the loader names the file.

The doctree is walked into `Section`s exactly like Markdown's tokens.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from ragtest_core.text import words
from testgen.loaders.sphinx_compat import DROPPED, docutils_patched, inline_text
from testgen.structure import Block, Section, row_block

_SKIPPED = words(
    "system_message comment substitution_definition target image raw pending transition title footnote citation"
)


@dataclass
class _Walk:
    title: str
    sections: list[Section] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    dropped: int = 0
    #: Every target name a section carries (".. _topics-spiders:" above it, its own title) -> its title.
    labels: dict[str, str] = field(default_factory=dict)

    def add(self, block: Block) -> None:
        if not block.text.strip():
            return
        if not self.sections:
            self.sections.append(Section(tuple(self.path) or (self.title,)))
        self.sections[-1].blocks.append(block)


def parse_rst(text: str, title: str) -> tuple[list[Section], int, dict[str, str]]:
    """(sections, directives dropped, section labels) of a reStructuredText page; `title` when the page has no
    title of its own. The labels let `:ref:` marks be written as their section titles (`references`)."""
    from docutils.core import publish_doctree

    settings = {
        "report_level": 5,
        "halt_level": 5,
        "warning_stream": io.StringIO(),
        "doctitle_xform": False,
        "sectsubtitle_xform": False,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "syntax_highlight": "none",
        "input_encoding": "unicode",
    }
    with docutils_patched():
        doctree = publish_doctree(text, settings_overrides=settings)
    walk = _Walk(title=title)
    _children(doctree, walk)
    return [s for s in walk.sections if s.has_text()], walk.dropped, walk.labels


def _children(node: Any, walk: _Walk) -> None:
    for child in node.children:
        _node(child, walk)


def _node(node: Any, walk: _Walk) -> None:
    from docutils import nodes

    name = node.tagname
    if getattr(node, "get", None) and node.get(DROPPED):
        walk.dropped += 1
    elif name in _SKIPPED:
        return
    elif isinstance(node, nodes.section):
        _section(node, walk)
    elif name == "paragraph":
        walk.add(Block("prose", inline_text(node)))
    elif name in ("literal_block", "doctest_block"):
        walk.add(Block("code", node.astext()))
    elif name == "line_block":
        for line in node.traverse(nodes.line):
            walk.add(Block("prose", inline_text(line)))
    elif name in _LISTS:
        for item in node.children:
            _item(item, walk, *_LISTS[name])
    elif name == "table":
        _table(node, walk)
    else:  # admonitions, block quotes, containers, compounds, topics, tabs: their content
        _children(node, walk)


def _section(node: Any, walk: _Walk) -> None:
    from docutils import nodes

    title = next((inline_text(c, code=False) for c in node.children if isinstance(c, nodes.title)), "")
    for name in node.get("names", []):
        walk.labels.setdefault(name, title)
    walk.path.append(title or walk.title)
    walk.sections.append(Section(tuple(walk.path)))
    _children(node, walk)
    walk.path.pop()
    if walk.path:  # text after a subsection belongs to the parent heading again
        walk.sections.append(Section(tuple(walk.path)))


#: Lists by tag, with the tags of an entry's name and body (a list item has neither: it is its own body).
_LISTS: dict[str, tuple[str | None, str | None]] = {
    "bullet_list": (None, None),
    "enumerated_list": (None, None),
    "definition_list": ("term", "definition"),
    "field_list": ("field_name", "field_body"),
}


def _item(node: Any, walk: _Walk, name_tag: str | None, body_tag: str | None) -> None:
    """A list entry as one item: the words of its body's paragraphs (named by its `name_tag` child, if any), then
    its body's other children (code, nested lists)."""
    term = next((inline_text(c) for c in node.children if c.tagname == name_tag), "")
    if (body := next((c for c in node.children if c.tagname == body_tag), None) if body_tag else node) is None:
        return
    words: list[str] = []
    rest: list[Any] = []
    for child in body.children:
        if child.tagname == "paragraph" and not rest:
            words.append(inline_text(child))
        else:
            rest.append(child)
    walk.add(Block("item", " ".join(words), term=term or None))
    for child in rest:
        _node(child, walk)


def _table(node: Any, walk: _Walk) -> None:
    from docutils import nodes

    header: list[str] = []
    for row in node.traverse(nodes.row):
        cells = [" ".join(inline_text(p) for p in entry.traverse(nodes.paragraph)) for entry in row.children]
        if isinstance(row.parent, nodes.thead):
            header = cells
        elif block := row_block(header, cells):
            walk.add(block)
