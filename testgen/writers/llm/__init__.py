"""The LLM question writer: a chat model writes every question type from a context, citing its blocks."""

from testgen.writers.llm.prompt import TASKS, QAList, QAPair, parse_text_pairs, render_prompt, writer_call
from testgen.writers.llm.writer import LLMWriter

__all__ = ["TASKS", "LLMWriter", "QAList", "QAPair", "parse_text_pairs", "render_prompt", "writer_call"]
