"""The public surface stays small and listed: the five roots' `__all__` together hold at most 60 names, each one
importable from its root (the lazy ones too) and named on the API page (docs/api.md)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOTS = ("ragtest", "ragtest_core", "testgen", "evaluation", "rag_under_test")
API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_the_roots_export_few_names_and_the_api_page_lists_each() -> None:
    listed = set(re.findall(r"`(\w+)", API_PAGE.read_text(encoding="utf-8")))
    names = []
    for root in ROOTS:
        module = importlib.import_module(root)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{root}.{name}"
            assert name in listed, f"docs/api.md does not name {root}.{name}"
            names.append(name)
        assert f"::: {root}" in API_PAGE.read_text(encoding="utf-8") or not module.__all__, root
    assert len(names) <= 60, len(names)
