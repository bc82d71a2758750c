"""Statements and their citation markers: the shared statement step's output read by each metric.

The LLM judge extracts an answer's statements once (`LLMJudge.statements`), keeping citation markers ("[1]",
"[2, 4]"). Faithfulness and answer correctness judge the statements without their markers; the citation metrics read
the markers (see `evaluation.metrics.citations`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")


def marker_numbers(text: str) -> list[int]:
    """The context numbers cited in `text`, in order (repeats kept)."""
    return [int(n) for group in MARKER.findall(text) for n in group.split(",")]


def strip_markers(text: str) -> str:
    """`text` without citation markers, spaces tidied ("in Paris [1]." -> "in Paris.")."""
    if "[" not in text:
        return text.strip()
    plain = _SPACES.sub(" ", MARKER.sub("", text))
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", plain).strip()


def plain_statements(statements: Sequence[str]) -> list[str]:
    """The statements without their markers, blank ones dropped."""
    return [plain for s in statements if (plain := strip_markers(s))]
