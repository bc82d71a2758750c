"""testgen: synthetic test sets from documents.

What users call is listed in `__all__`; the app's plumbing (call planning, collection names, default values its
settings read) is imported from the submodules that own it.

sources -> chunks -> Chroma store -> contexts (root chunk + K neighbours) -> question writer
-> filters (rules, de-duplication, groundedness) -> exactly `size` samples in a question-type distribution.
"""

from testgen.chunking import Chunk, ChunkingConfig, chunk_documents
from testgen.contexts import Context
from testgen.critic import LLMCritic, OfflineCritic
from testgen.files import LoadedFiles, list_files, load_files, read_file, read_files
from testgen.filters import QuestionRules
from testgen.generator import TestsetGenerator
from testgen.question_types import QUESTION_TYPES, QuestionType
from testgen.stats import GenerationStats
from testgen.stopping import StopRules
from testgen.store import ChunkKey, ChunkStore, Hit
from testgen.wikipedia_source import load_wikipedia, parse_topic, read_topics
from testgen.writers import Draft, ExtractiveWriter, LLMWriter, QuestionWriter

__all__ = [
    "QUESTION_TYPES",
    "Chunk",
    "ChunkKey",
    "ChunkStore",
    "ChunkingConfig",
    "Context",
    "Draft",
    "ExtractiveWriter",
    "GenerationStats",
    "Hit",
    "LLMCritic",
    "LLMWriter",
    "LoadedFiles",
    "OfflineCritic",
    "QuestionRules",
    "QuestionType",
    "QuestionWriter",
    "StopRules",
    "TestsetGenerator",
    "chunk_documents",
    "list_files",
    "load_files",
    "load_wikipedia",
    "parse_topic",
    "read_file",
    "read_files",
    "read_topics",
]
