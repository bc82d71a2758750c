"""Question writers: the offline writer (`ExtractiveWriter`, `extractive`) over two strategies, `sentences` (a
sentence turned by fixed rules) and `docs` (a documentation chunk's structure), both on the English toolkit
`english`; and the LLM writer (`llm`). The strategies never import each other (an import-linter contract); what
every writer returns is in `base`."""

from testgen.writers.base import Draft, QuestionWriter
from testgen.writers.extractive import ExtractiveWriter
from testgen.writers.llm import LLMWriter, parse_text_pairs

__all__ = ["Draft", "ExtractiveWriter", "LLMWriter", "QuestionWriter", "parse_text_pairs"]
