"""MkDocs hook: the pages whose reference parts are generated at build time from the code's declarations.

- `docs/cli.md` holds the CLI marker; it becomes `cli_reference.render_cli_reference()`: the flags, defaults,
  environment variables and help texts the settings declare.
- `docs/metrics.md` holds the metrics marker; it becomes `metric_reference.render_metric_reference()`: each
  metric's definition and scale note as its class declares them, the words the report prints beside its score.

A page that has lost its marker fails the build, so a generated part cannot silently disappear. Both renderers sit
beside this hook (MkDocs puts the hook's folder on the import path while it loads it; the tests, through pytest's
`pythonpath`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli_reference import render_cli_reference
from metric_reference import render_metric_reference
from mkdocs.exceptions import PluginError

MARKER = "<!-- ragtest:cli-reference -->"
METRICS_MARKER = "<!-- ragtest:metric-definitions -->"
#: page -> (its marker, what replaces it: called at each build, so it reads the declarations of that moment).
GENERATED: dict[str, tuple[str, Callable[[], str]]] = {
    "cli.md": (MARKER, render_cli_reference),
    "metrics.md": (METRICS_MARKER, render_metric_reference),
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    generated = GENERATED.get(page.file.src_uri)
    if generated is None:
        return markdown
    marker, render = generated
    if marker not in markdown:
        raise PluginError(f"{page.file.src_uri} has lost its marker {marker}: its generated part has nowhere to go")
    return markdown.replace(marker, render())
