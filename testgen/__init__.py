"""testgen: synthetic test sets from documents.

sources -> chunks -> Chroma store -> contexts (root chunk + K neighbours) -> question writer
-> filters -> samples.
"""

from testgen.chunking import Chunk, ChunkingConfig, chunk_documents
from testgen.contexts import Context, build_contexts, draw_roots
from testgen.files import load_files
from testgen.filters import QuestionFilter
from testgen.generator import GenerationStats, TestsetGenerator
from testgen.sources import make_document
from testgen.store import ChunkStore, Hit
from testgen.wikipedia_source import load_wikipedia
from testgen.writers import Draft, ExtractiveWriter, LLMWriter, QuestionWriter

__all__ = [
    "Chunk",
    "ChunkStore",
    "ChunkingConfig",
    "Context",
    "Draft",
    "ExtractiveWriter",
    "GenerationStats",
    "Hit",
    "LLMWriter",
    "QuestionFilter",
    "QuestionWriter",
    "TestsetGenerator",
    "build_contexts",
    "chunk_documents",
    "draw_roots",
    "load_files",
    "load_wikipedia",
    "make_document",
]
