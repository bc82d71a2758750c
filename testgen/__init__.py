"""testgen: synthetic test sets from documents.

sources -> chunks -> Chroma store (and the corpus graph) -> contexts (root chunk + K neighbours) -> question writer
-> filters (rules, de-duplication, groundedness) -> exactly `size` samples in a question-type distribution.

What users call is listed in `__all__`; the app's plumbing (reading files with their skip reasons, topics files,
call planning, collection names, the default values its settings read) is imported from the submodules that own
it (`files`, `wikipedia_source`, `planning`, `store`, ...).
"""

from testgen.chunking import ChunkingConfig, chunk_documents
from testgen.files import load_files
from testgen.generator import TestsetGenerator
from testgen.graph import CorpusGraph, build_graph
from testgen.settings import GenerationSettings
from testgen.store import ChunkStore
from testgen.wikipedia_source import load_wikipedia
from testgen.writers import ExtractiveWriter, LLMWriter, QuestionWriter

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
