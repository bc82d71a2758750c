"""testgen: synthetic test sets from documents.

sources -> chunks -> Chroma store -> contexts (root chunk + K neighbours) -> question writer
-> filters (rules, de-duplication, groundedness) -> exactly `size` samples in a question-type distribution.
"""

from testgen.chunking import Chunk, ChunkingConfig, chunk_documents
from testgen.contexts import DEFAULT_K_NEIGHBOURS, Context, build_contexts, draw_roots
from testgen.critic import LLMCritic, OfflineCritic
from testgen.files import LoadedFiles, list_files, load_files, read_file, read_files
from testgen.filters import DEFAULT_MAX_COPIED_WORDS, DEFAULT_MAX_WORDS, QuestionRules
from testgen.generator import TestsetGenerator
from testgen.planning import plan_batch, plan_llm_calls, plan_types
from testgen.question_types import QUESTION_TYPES, QuestionType, parse_distribution
from testgen.screening import DEFAULT_DEDUP_THRESHOLD
from testgen.sources import make_document
from testgen.stats import GenerationStats
from testgen.stopping import StopRules
from testgen.store import (
    DEFAULT_COLLECTION,
    ChunkKey,
    ChunkStore,
    Hit,
    collection_for_ids,
    corpus_collection,
    corpus_description,
)
from testgen.structure import embedding_text
from testgen.wikipedia_source import load_wikipedia, parse_topic, read_topics
from testgen.writers import Draft, ExtractiveWriter, LLMWriter, QuestionWriter

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_DEDUP_THRESHOLD",
    "DEFAULT_K_NEIGHBOURS",
    "DEFAULT_MAX_COPIED_WORDS",
    "DEFAULT_MAX_WORDS",
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
    "build_contexts",
    "chunk_documents",
    "collection_for_ids",
    "corpus_collection",
    "corpus_description",
    "draw_roots",
    "embedding_text",
    "list_files",
    "load_files",
    "load_wikipedia",
    "make_document",
    "parse_distribution",
    "parse_topic",
    "plan_batch",
    "plan_llm_calls",
    "plan_types",
    "read_file",
    "read_files",
    "read_topics",
]
