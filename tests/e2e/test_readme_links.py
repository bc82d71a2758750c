"""The README's relative links (`docs/metrics.md`, `examples/wikipedia/`) name files that the repository has, and the
README stays a guide: at most 400 lines."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_links_name_files_in_the_repository() -> None:
    targets = [t for t in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in t and not t.startswith("#")]
    assert targets, "the README links to no docs page"
    missing = sorted({t for t in targets if not (ROOT / t.split("#", 1)[0]).exists()})
    assert not missing, f"README.md links to files the repository does not have: {missing}"


def test_readme_is_a_short_guide() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"README.md has {lines} lines; the reference belongs in docs/"
