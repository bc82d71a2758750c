"""Data inside the Markdown reports (report.md, compare.md), neutralised: Markdown lets raw HTML and links through,
so a question, an answer or a source name could otherwise carry `<script>`, `<img onerror=...>`, an `<iframe>` or
a `[link](javascript:...)` into a viewer that renders it.

`markdown_inline` is the Markdown templates' `finalize`: every `{{ value }}` they print goes through it, whatever
the template, so a new field cannot be forgotten. It keeps the text readable as plain Markdown source:

- `<` becomes `&lt;`: no HTML tag, comment or autolink can start (`>` and `&` are left as they are, for a
  readable file: neither can start markup, and an entity can only produce text);
- `[`, `]` are backslash-escaped, so no link, image or reference (`[x](javascript:...)`, `![x](http://tracker)`)
  can form, and a scheme such as `javascript:` is never a link target;
- `|` is escaped (a table cell stays one cell), backslashes and backticks too (no escape is undone, no code span
  swallows the template's markup), and line breaks become spaces (a value never starts a line: no heading, list
  or block starts inside it).

Values made only of numbers, signs and brackets (the templates' "[0.412, 0.733]" intervals) are left as they are:
they cannot hold markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_ESCAPES = {"<": "&lt;", "[": "\\[", "]": "\\]", "|": "\\|", "`": "\\`", "\\": "\\\\"}
_SPECIAL = re.compile(r"[<\[\]|`\\]")
_NUMBERS = re.compile(r"[\d\s.,+\-\[\]%]*")
_BREAKS = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


def markdown_inline(value: Any) -> Any:
    """`value` as inline Markdown text that renders as itself (see the module doc); non-text values unchanged."""
    if not isinstance(value, str) or _NUMBERS.fullmatch(value):
        return value
    text = _BREAKS.sub(" ", value)
    return _SPECIAL.sub(lambda match: _ESCAPES[match.group(0)], text)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; an empty cell is written as a space, so that every row keeps its columns."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return "\n".join(lines)
