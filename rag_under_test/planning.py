"""The LLM calls the reference RAG will make, planned by the code that makes them (for `--dry-run` estimates)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rag_under_test.reference import STAGE, answer_prompt
from ragtest_core.llm.plan import PlannedCall


def plan_llm_calls(questions: Iterable[tuple[str, Sequence[str]]]) -> list[PlannedCall]:
    """One answer call per (question, retrieved contexts): what `ReferenceRAG.aanswer` sends with an LLM."""
    return [PlannedCall(STAGE, answer_prompt(question, contexts)) for question, contexts in questions]
