"""Question writers: the offline writer (`ExtractiveWriter`, `extractive`) over two strategies, `sentences` (a
sentence turned by fixed rules) and `docs` (a documentation chunk's structure), both on the English toolkit
`english`; and the LLM writer (`llm`). The strategies never import each other (an import-linter contract); what
every writer returns is in `base`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from testgen.writers.base import Draft, QuestionWriter

if TYPE_CHECKING:
    from testgen.writers.extractive import ExtractiveWriter
    from testgen.writers.llm import LLMWriter, parse_text_pairs

#: The writers, imported on first use: what every writer returns (`base`) loads neither's word lists or prompts.
_HOMES = {"ExtractiveWriter": "extractive", "LLMWriter": "llm", "parse_text_pairs": "llm"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'testgen.writers' has no attribute {name!r}")
    return getattr(importlib.import_module(f"testgen.writers.{_HOMES[name]}"), name)


__all__ = ["Draft", "ExtractiveWriter", "LLMWriter", "QuestionWriter", "parse_text_pairs"]
