"""testgen: synthetic test sets from documents.

sources -> chunks -> Chroma store (and the corpus graph) -> contexts (root chunk + K neighbours) -> question writer
-> filters (rules, de-duplication, groundedness) -> exactly `size` samples in a question-type distribution.

What users call is listed in `__all__`; the app's plumbing (reading files with their skip reasons, topics files,
call planning, collection names, the default values its settings read) is imported from the submodules that own
it (`files`, `wikipedia_source`, `planning`, `store`, ...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from testgen.chunking import ChunkingConfig, chunk_documents
    from testgen.files import load_files
    from testgen.generator import TestsetGenerator
    from testgen.graph import CorpusGraph, build_graph
    from testgen.settings import GenerationSettings
    from testgen.store import ChunkStore
    from testgen.wikipedia_source import load_wikipedia
    from testgen.writers import ExtractiveWriter, LLMWriter, QuestionWriter

#: Each public name's module, imported on first use: reading the settings (`testgen.settings`, on which the app's
#: config declares its generation section) then loads neither the writers nor Chroma nor LangChain.
_HOMES = {
    "ChunkStore": "store",
    "ChunkingConfig": "chunking",
    "CorpusGraph": "graph",
    "ExtractiveWriter": "writers",
    "GenerationSettings": "settings",
    "LLMWriter": "writers",
    "QuestionWriter": "writers",
    "TestsetGenerator": "generator",
    "build_graph": "graph",
    "chunk_documents": "chunking",
    "load_files": "files",
    "load_wikipedia": "wikipedia_source",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'testgen' has no attribute {name!r}")
    return getattr(importlib.import_module(f"testgen.{_HOMES[name]}"), name)


__all__ = [
    "ChunkStore",
    "ChunkingConfig",
    "CorpusGraph",
    "ExtractiveWriter",
    "GenerationSettings",
    "LLMWriter",
    "QuestionWriter",
    "TestsetGenerator",
    "build_graph",
    "chunk_documents",
    "load_files",
    "load_wikipedia",
]
