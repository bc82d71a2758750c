"""markdown-it-py block rules for the MkDocs extensions real documentation uses beyond mdit-py-plugins:

- content tabs (pymdownx.tabbed): `=== "Python"` and the indented blocks under it, parsed as Markdown
  (`tab_open` / `tab_close`, the label in `info`);
- snippet includes: `--8<-- "file.md"` (pymdownx.snippets) and `{! file.md !}` (markdown-include), one token
  `snippet_include` each, never text;
- mkdocstrings blocks: `::: package.name` and the indented options under it (`autodoc`), never text;
- abbreviation definitions: `*[HTML]: Hyper Text Markup Language` (`abbreviation`), never text;
- generic blocks (pymdownx.blocks): `/// admonition | Title`, `//// tab | Label`, `/// details`, ... up to the
  line of as many slashes: the body is parsed as Markdown (`block_open` / `block_close`, the name in `info`), the
  title and the indented option lines under the opening line (`type: preview`) are no text;
- icons and emoji shortcodes (pymdownx.emoji): `:octicons-package-24:`, `:material-equal:` (`icon`), never text.

Each rule reads one line's start the way the parser's own rules do (positions from the block state), and nested
content goes back through the parser, as mdit-py-plugins' admonitions do.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

#: Token types that stand for content the page includes from elsewhere: counted, never turned into text.
DROPPED_TOKENS = frozenset({"snippet_include", "autodoc", "abbreviation"})
_TAB_MARKERS = ("===! ", "===+ ", "=== ")
_ALTERNATIVES = {"alt": ["paragraph", "reference", "blockquote", "list"]}


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _is_code(state: StateBlock, line: int) -> bool:
    return state.sCount[line] - state.blkIndent >= 4


def _indented_end(state: StateBlock, start: int, end: int, indent: int) -> int:
    """The first line after `start` that is not blank and is indented less than `indent`."""
    line = start + 1
    while line < end:
        blank = state.bMarks[line] + state.tShift[line] >= state.eMarks[line]
        if not blank and state.sCount[line] < indent:
            break
        line += 1
    while line - 1 > start and state.bMarks[line - 1] + state.tShift[line - 1] >= state.eMarks[line - 1]:
        line -= 1  # trailing blank lines belong to what follows
    return line


def _leaf(state: StateBlock, kind: str, start: int, after: int, content: str, info: str = "") -> bool:
    """One `kind` token for lines `start` to `after` (never text)."""
    token = state.push(kind, "", 0)
    token.content, token.info, token.map = content, info, [start, after]
    state.line = after
    return True


def content_tab(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if _is_code(state, start_line):
        return False
    text = _line(state, start_line)
    marker = next((m for m in _TAB_MARKERS if text.startswith(m)), None)
    label = text[len(marker) :].strip() if marker else ""
    if marker is None or len(label) < 2 or label[0] != '"' or label[-1] != '"':
        return False
    if silent:
        return True
    indent = state.sCount[start_line] + 4
    next_line = _indented_end(state, start_line, end_line, indent)
    return _container(state, "tab", label.strip('"'), start_line, range(start_line + 1, next_line), next_line, indent)


def snippet_include(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if _is_code(state, start_line):
        return False
    text = _line(state, start_line).strip()
    if not (text.startswith("--8<--") or (text.startswith("{!") and text.endswith("!}"))):
        return False
    return silent or _leaf(state, "snippet_include", start_line, start_line + 1, text)


def autodoc(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if _is_code(state, start_line):
        return False
    text = _line(state, start_line)
    name = text[4:].strip() if text.startswith("::: ") else ""
    if not name or " " in name:
        return False
    next_line = _indented_end(state, start_line, end_line, state.sCount[start_line] + 1)
    return silent or _leaf(state, "autodoc", start_line, next_line, name)


def abbreviation(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if _is_code(state, start_line):
        return False
    text = _line(state, start_line)
    close = text.find("]:")
    if not text.startswith("*[") or close < 3:
        return False
    return silent or _leaf(state, "abbreviation", start_line, start_line + 1, text[close + 2 :].strip(), text[2:close])


#: "/// admonition | Title", "//// tab | Label": three or more slashes, a block name, an optional title.
_BLOCK_START = re.compile(r"(?P<fence>/{3,}) *(?P<name>[a-z][\w-]*)(?: *\|.*)?$")
#: "type: preview", "open: True": an option line of a generic block, indented under its opening line.
_BLOCK_OPTION = re.compile(r"[\w-]+: ?.*$")
#: A Material for MkDocs icon or an emoji shortcode.
_ICON = re.compile(r":(?:material|octicons|fontawesome|simple)-[a-z0-9-]+:|:[a-z0-9_+-]+:(?=\s|$)")


def generic_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if _is_code(state, start_line):
        return False
    if (opening := _BLOCK_START.match(_line(state, start_line).strip())) is None:
        return False
    fence = opening.group("fence")
    if (close := next((n for n in range(start_line + 1, end_line) if _line(state, n).strip() == fence), None)) is None:
        return False
    if silent:
        return True
    body = start_line + 1
    while body < close and state.sCount[body] > state.sCount[start_line] and _BLOCK_OPTION.match(_line(state, body)):
        body += 1
    return _container(state, "block", opening.group("name"), start_line, range(body, close), close + 1, state.blkIndent)


def _container(state: StateBlock, kind: str, info: str, start: int, body: range, after: int, indent: int) -> bool:
    """`kind`_open and `kind`_close tokens around the Markdown of the `body` lines, parsed as the page is (`indent`
    deep); the container runs from line `start` to `after`."""
    old_parent, old_max, old_indent = state.parentType, state.lineMax, state.blkIndent
    state.parentType, state.lineMax, state.blkIndent = kind, body.stop, indent
    token = state.push(f"{kind}_open", "div", 1)
    token.info, token.map = info, [start, after]
    state.md.block.tokenize(state, body.start, body.stop)
    state.push(f"{kind}_close", "div", -1)
    state.parentType, state.lineMax, state.blkIndent = old_parent, old_max, old_indent
    state.line = after
    return True


def icon(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != ":":
        return False
    if (found := _ICON.match(state.src, state.pos)) is None:
        return False
    if not silent:
        state.push("icon", "", 0).content = found.group(0)
    state.pos = found.end()
    return True


def mkdocs_plugin(md: MarkdownIt) -> None:
    """Adds the rules above, before fenced code (so an indented tab body is not read as code)."""
    md.block.ruler.before("fence", "content_tab", content_tab, _ALTERNATIVES)  # type: ignore[arg-type]
    md.block.ruler.before("fence", "snippet_include", snippet_include, _ALTERNATIVES)  # type: ignore[arg-type]
    md.block.ruler.before("fence", "autodoc", autodoc, _ALTERNATIVES)  # type: ignore[arg-type]
    md.block.ruler.before("reference", "abbreviation", abbreviation, _ALTERNATIVES)  # type: ignore[arg-type]
    md.block.ruler.before("fence", "generic_block", generic_block, _ALTERNATIVES)  # type: ignore[arg-type]
    md.inline.ruler.before("text", "icon", icon)
