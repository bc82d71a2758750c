"""Question writers: the offline extractive writer and the LLM writer."""

from testgen.writers.base import Draft, QuestionWriter
from testgen.writers.extractive import ExtractiveWriter
from testgen.writers.llm import LLMWriter, parse_text_pairs

__all__ = ["Draft", "ExtractiveWriter", "LLMWriter", "QuestionWriter", "parse_text_pairs"]
