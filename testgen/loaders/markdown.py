"""Markdown read by markdown-it-py (CommonMark + GFM tables) with mdit-py-plugins and the MkDocs rules of
`testgen.loaders.mkdocs`: front matter, admonitions, content tabs, snippet includes, mkdocstrings blocks,
abbreviations, definition lists, footnotes, inline HTML.

The token stream becomes `Section`s: headings open sections (the heading path is page title > section >
subsection), paragraphs become prose, fenced and indented code become code blocks, list items, table rows and
definition-list entries become items. Markup never reaches the text: links keep their words, inline code keeps its
backticks (it names an option or a function), HTML keeps its visible text, admonition and tab titles, include
markers and abbreviation definitions are dropped. MyST, the Markdown of Sphinx projects, is read too: roles
(`{func}`attrs.define`` reads `attrs.define()`, `{term}`slotted classes`` its words) and directives in fences
(```` ```{doctest} ```` is code, `{note}` keeps its text, `{toctree}` / `{include}` are dropped), as the
reStructuredText loader reads them (`testgen.loaders.sphinx_compat`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from testgen.loaders.mkdocs import DROPPED_TOKENS, mkdocs_plugin
from testgen.loaders.sphinx_compat import directive_kind, role_text, version_words
from testgen.structure import Block, Section, row_block, under_heading

_ITEM_SEPARATORS = (" - ", " – ", " — ", ": ", " : ")


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    from mdit_py_plugins.admon import admon_plugin
    from mdit_py_plugins.attrs import attrs_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin

    md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    md = md.use(front_matter_plugin).use(admon_plugin).use(deflist_plugin).use(footnote_plugin).use(mkdocs_plugin)
    # attr_list after code, links and icons: `True`{ title="default" }, [](){#anchor}, :material-lock:{ .lg }
    md = md.use(attrs_plugin, after=("image", "code_inline", "link_close", "span_close", "icon"))
    return md.use(myst_role_plugin).use(myst_block_plugin)  # MyST (Sphinx's Markdown): {role}`x`, (target)=


def html_text(html: str) -> str:
    """The visible text of an HTML fragment (no tags, comments, scripts or styles), one paragraph a line."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    lines = (" ".join(line.split()) for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line)


def inline_text(token: Token) -> str:
    """The words of an inline token: text, `code` with its backticks, link words; no HTML tags, images or icons."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type == "myst_role":  # {func}`attrs.define` -> `attrs.define()`; {term}`slots` -> slots
            shown, code = role_text(str(child.meta.get("name", "")), child.content)
            parts.append(f"`{shown}`" if code else shown)
        elif child.type == "text":  # not html_inline, image, footnote_ref, icon
            parts.append(child.content)
    return " ".join("".join(parts).split())


class AutorefLabels(dict[str, dict[str, str]]):
    """The link references of one Markdown text, plus those mkdocs-autorefs resolves at build time: a label shaped
    like an API object or anchor ("[`modernize()`][griffe.Expr.modernize]", "[make check-api][task-check-api]") is
    a link whose words are kept, not literal brackets in the text. markdown-it looks references up with `get`."""

    def get(self, key: str, default: dict[str, str] | None = None) -> dict[str, str] | None:  # type: ignore[override]
        found = super().get(key)
        if found is None and _AUTOREF_LABEL.fullmatch(key):
            return {"href": "", "title": ""}
        return found if found is not None else default


#: An autorefs identifier: a dotted, dashed or underscored name without spaces (markdown-it has lower-cased it).
_AUTOREF_LABEL = re.compile(r"`?[\w()]+(?:[.:_-][\w()]+)+`?|`[^`\s]+`")


def heading_text(token: Token) -> str:
    """A heading's words without a trailing attribute list (MkDocs attr_list: "Sections {#google-sections}",
    Python-Markdown's own form with a colon: "Registries {: #registries }")."""
    from mdit_py_plugins.attrs.parse import ParseError, parse

    text = inline_text(token)
    start = text.rfind(" {")
    if start > 0 and text.endswith("}"):
        block = text[start + 1 :]
        colon = block.startswith("{:")
        try:
            end, _ = parse("{" + block[2:] if colon else block)
        except ParseError:
            return text
        if start + 2 + end + colon == len(text):  # `parse` gives the index of the closing brace
            return text[:start].rstrip()
    return text


@dataclass
class _Walk:
    """The state of one pass over a token stream."""

    title: str
    sections: list[Section] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)
    item: list[str] | None = None
    item_depth: int = 0
    row: list[str] | None = None
    header: list[str] = field(default_factory=list)
    in_head: bool = False
    term: str | None = None
    in_title: int = 0
    dropped: int = 0

    def section(self) -> Section:
        if not self.sections:
            self.sections.append(Section((self.title,)))
        return self.sections[-1]

    def heading(self, level: int, text: str) -> None:
        self.flush_item()
        if level == 1 and not self.path and not any(s.has_text() for s in self.sections):
            self.sections.clear()
        self.path, section = under_heading(self.path, level, text, self.title)
        self.sections.append(section)

    def add(self, block: Block) -> None:
        if block.text.strip():
            self.section().blocks.append(block)

    def flush_item(self) -> None:
        if self.item is not None and self.item:
            # paragraphs of one item are sentences apart: a card's title ("Build system") does not run into its text
            ends = [
                part if part.rstrip().endswith((".", "!", "?", ":", ";")) else f"{part}." for part in self.item[:-1]
            ]
            self.add(item_block(" ".join([*ends, self.item[-1]])))
        self.item = None


def item_block(text: str, term: str | None = None) -> Block:
    """A list item; one that opens with inline code and a separator ("`timeout` - the timeout to use") names it."""
    text = " ".join(text.split())
    if term is None and text.startswith("`"):
        end = text.find("`", 1)
        rest = text[end + 1 :]
        for separator in _ITEM_SEPARATORS:
            if end > 1 and rest.startswith(separator):
                return Block("item", rest[len(separator) :].strip(), term=text[: end + 1])
    return Block("item", text, term=term)


def parse_markdown(text: str, title: str) -> tuple[list[Section], int]:
    """(sections, number of dropped include / autodoc markers) of a Markdown page titled `title` when it has no
    level-1 heading of its own (a `title:` in the front matter wins)."""
    return parse_parts([("markdown", text)], title)


def parse_parts(parts: Sequence[tuple[str, str]], title: str) -> tuple[list[Section], int]:
    """`parse_markdown` over ("markdown", text) and ("code", text) parts in order (a notebook's cells): headings
    in one Markdown part hold for the parts after it."""
    walk = _Walk(title=title)
    for number, (kind, text) in enumerate(parts):
        if kind == "code":
            walk.flush_item()
            walk.add(Block("code", text))
            continue
        tokens = parser().parse(text, {"references": AutorefLabels()})
        if number == 0:
            walk.title = front_matter_title(tokens) or title
        walk_tokens(tokens, walk)
        walk.flush_item()
    return [s for s in walk.sections if s.has_text()], walk.dropped


def front_matter_title(tokens: Sequence[Token]) -> str | None:
    for token in tokens:
        if token.type == "front_matter":
            import yaml

            try:
                data: Any = yaml.safe_load(token.content)
            except yaml.YAMLError:
                return None
            if isinstance(data, dict) and isinstance(data.get("title"), str):
                return str(data["title"]).strip() or None
    return None


def walk_tokens(tokens: Sequence[Token], walk: _Walk) -> None:
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            walk.heading(int(token.tag[1:]), heading_text(tokens[index + 1]))
            index += 3
            continue
        if kind in ("admonition_title_open", "admonition_title_close"):
            walk.in_title += 1 if kind.endswith("open") else -1
        elif kind in DROPPED_TOKENS:
            walk.dropped += 1
        elif kind == "fence" and token.info.startswith("{"):
            _directive(token, walk)
        elif kind in ("fence", "code_block"):
            walk.flush_item()
            walk.add(Block("code", token.content))
        elif kind == "html_block":
            for line in html_text(token.content).splitlines():
                walk.add(Block("prose", line))
        elif kind == "list_item_open":
            walk.flush_item()
            walk.item = []
            walk.item_depth += 1
        elif kind == "list_item_close":
            walk.flush_item()
            walk.item_depth -= 1
            if walk.item_depth:
                walk.item = []
        elif kind in ("thead_open", "thead_close"):
            walk.in_head = kind == "thead_open"
        elif kind == "tr_open":
            walk.row = []
        elif kind == "tr_close":
            _finish_row(walk)
        elif kind == "dt_open":
            walk.term = ""
        elif kind == "inline":
            _inline(token, walk, tokens[index - 1].type if index else "")
        index += 1


def _directive(token: Token, walk: _Walk) -> None:
    """A MyST directive (```{name} ... ```): code stays code, toctree / include / autodoc are dropped, an
    admonition or other directive keeps its content, read as Markdown; option lines (":maxdepth: 2") are dropped."""
    name = token.info[1:].split("}")[0].strip()
    argument = token.info.split("}", 1)[1].strip() if "}" in token.info else ""
    lines = token.content.splitlines()
    while lines and (lines[0].startswith(":") or not lines[0].strip()):
        lines.pop(0)
    body = "\n".join(lines)
    kind = directive_kind(name)
    walk.flush_item()
    if kind == "drop":
        walk.dropped += 1
    elif kind == "code":
        walk.add(Block("code", body))
    elif name.split(":")[-1] == "glossary":
        for term, definition in _glossary_entries(lines):
            walk.term = term
            walk_tokens(parser().parse(definition), walk)
            walk.term = None
    else:
        if kind == "version" and argument:
            walk.add(Block("prose", f"{version_words(name)} {argument.split()[0]}."))
        walk_tokens(parser().parse(body), walk)


def _glossary_entries(lines: Sequence[str]) -> list[tuple[str, str]]:
    """A Sphinx glossary's entries (a term on its own line, its definition indented below), as (term,
    definition) with the definition dedented."""
    import textwrap

    entries: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.strip() and not line[:1].isspace():
            entries.append((line.strip(), []))
        elif entries:
            entries[-1][1].append(line)
    return [(term, textwrap.dedent("\n".join(body)).strip()) for term, body in entries if "".join(body).strip()]


def _inline(token: Token, walk: _Walk, opener: str) -> None:
    text = inline_text(token)
    if not text or walk.in_title:
        return
    if walk.row is not None:
        walk.row.append(text)
    elif opener == "dt_open":
        walk.term = text
    elif walk.term and opener == "paragraph_open" and walk.item is None:
        walk.add(Block("item", text, term=walk.term))
        walk.term = None
    elif walk.item is not None:
        walk.item.append(text)
    else:
        walk.add(Block("prose", text))


def _finish_row(walk: _Walk) -> None:
    row, walk.row = walk.row or [], None
    if walk.in_head:
        walk.header = row
    elif block := row_block(walk.header, row):
        walk.add(block)
