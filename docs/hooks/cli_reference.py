"""MkDocs hook: the CLI page's reference, generated at build time from the settings declarations.

`docs/cli.md` holds the marker below; this hook replaces it with `ragtest.cli_reference.render_cli_reference()`,
so the page always lists the flags, defaults, environment variables and help texts the code declares.
"""

from __future__ import annotations

from typing import Any

from mkdocs.exceptions import PluginError

from ragtest.cli_reference import render_cli_reference

MARKER = "<!-- ragtest:cli-reference -->"
PAGE = "cli.md"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"{PAGE} has lost its marker {MARKER}: the generated CLI reference has nowhere to go")
    return markdown.replace(MARKER, render_cli_reference())
