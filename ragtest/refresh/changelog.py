"""What a refresh did, written beside the new set: `<stem>.changelog.json` and a Markdown summary `<stem>.changelog.md`
(what they hold: docs/refresh.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragtest.markdown_text import markdown_inline, markdown_table
from ragtest.refresh.matching import KEPT, MOVED, NEW, RETIRED, UPDATED
from ragtest_core.files import atomic_write_text, write_json

STATUSES = (KEPT, MOVED, UPDATED, RETIRED, NEW)


@dataclass(frozen=True)
class Entry:
    """One row's fate: an old row (kept, moved, updated or retired) or a new one."""

    sample_id: str
    question: str
    status: str
    page: str
    new_page: str = ""
    reason: str = ""
    old_reference: str = ""
    new_reference: str = ""


def changelog(entries: Sequence[Entry], old: Path, size: int) -> dict[str, Any]:
    def listed(status: str) -> list[dict[str, str]]:
        return [{k: v for k, v in asdict(e).items() if v and k != "status"} for e in entries if e.status == status]

    pages: dict[str, Counter[str]] = {}
    for entry in entries:
        pages.setdefault(entry.new_page or entry.page, Counter())[entry.status] += 1
    return {
        "from": str(old),
        "size": size,
        "counts": dict.fromkeys(STATUSES, 0) | Counter(entry.status for entry in entries),
        "by_page": {page: {s: n[s] for s in STATUSES if n[s]} for page, n in sorted(pages.items())},
        "retired": listed(RETIRED),
        "updated": listed(UPDATED),
        "moved": listed(MOVED),
    }


def write_changelog(document: dict[str, Any], output: Path) -> tuple[Path, Path]:
    json_path, md_path = (output.with_name(f"{output.stem}.changelog.{ext}") for ext in ("json", "md"))
    write_json(document, json_path)
    atomic_write_text(md_path, markdown(document))
    return json_path, md_path


def summary_line(found: dict[str, int]) -> str:
    return ", ".join(f"{found[status]} {status}" for status in STATUSES)


def markdown(document: dict[str, Any]) -> str:
    lines = [
        f"# Refresh of {markdown_inline(document['from'])}",
        "",
        f"{summary_line(document['counts'])} (size {document['size']}).",
        "",
        "## By page",
        "",
        markdown_table(
            ["page", *STATUSES],
            (
                [markdown_inline(page), *(str(found.get(s, "")) for s in STATUSES)]
                for page, found in document["by_page"].items()
            ),
        ),
    ]
    if document["retired"]:
        lines += ["", "## Retired", ""]
        lines += [f"- {_q(e)}: {markdown_inline(e.get('reason', ''))}" for e in document["retired"]]
    if document["updated"]:
        lines += ["", "## Updated", ""]
        for e in document["updated"]:
            lines.append(f'- {_q(e)}: was "{_t(e, "old_reference")}", now "{_t(e, "new_reference")}"')
    return "\n".join(lines) + "\n"


def _q(entry: dict[str, str]) -> str:
    return f"{_t(entry, 'question')} ({markdown_inline(entry.get('page', ''))})"


def _t(entry: dict[str, str], key: str) -> str:
    return str(markdown_inline(entry.get(key, "")))
