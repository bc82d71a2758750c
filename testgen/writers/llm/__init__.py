"""The LLM question writer: a chat model writes every question type from a context, citing its blocks."""

from testgen.writers.llm.prompt import TASKS, parse_text_pairs, writer_call
from testgen.writers.llm.writer import LLMWriter

__all__ = ["TASKS", "LLMWriter", "parse_text_pairs", "writer_call"]
