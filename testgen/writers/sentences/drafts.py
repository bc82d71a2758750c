"""From turned sentences to drafts: the checks a turned English sentence passes before it becomes a question
(`turned_problem`), and the drafts of one turned sentence and of a two-block question, each short answer a span of
its sentence, the reference answer that sentence (`reference.reference_sentence`)."""

from __future__ import annotations

import re

from testgen.writers.base import Draft, Turned
from testgen.writers.english.grammar import definition_problem, grammar_problem, vague_answer
from testgen.writers.sentences.combine import Combined, Fact
from testgen.writers.sentences.reference import reference_sentence

#: Rules whose question is "What is X?": the answer must define X.
DEFINITION_RULES = frozenset({"definition", "appositive"})
#: A subject holding a clause ("Telling if a type construct is compatible ..."): no question reads well around it.
_CLAUSE_SUBJECT = re.compile(
    r"\b(?:if|whether)\b|^(?:starting|beginning) (?:in|with|from)\b|\bby default\b| [-–—] |"
    r" (?-i:Some|The|A|An|This|These) |^just as\b",  # "Requirements Some CSRF-prevention ...": a heading run in
    re.IGNORECASE,
)  # "Starting in v2.0 by default urllib3 uses ...": a fronted phrase; "Slurry - Slurry is ...": an item's name


def turned_problem(turned: Turned, sentence: str) -> tuple[str, str] | None:
    """(reason, detail) when a turned English sentence gives no question: the grammar check against its source
    sentence, a clause as subject, for "What is X?" the definition check, and an answer that names something in
    particular ("various applications" does not); None when it passes."""
    problem = grammar_problem(turned.question, sentence, turned.subject)
    if problem is None and _CLAUSE_SUBJECT.search(turned.subject):
        problem = "a clause as subject"  # "Telling if a type construct is compatible ..."
    if problem is not None:
        return "ungrammatical", problem
    if turned.rule in DEFINITION_RULES and (problem := definition_problem(turned.answer)) is not None:
        return "not_a_definition", problem
    if vague_answer(turned.answer):
        return "vague_answer", ""
    return None


def sentence_draft(fact: Fact, language: str, tier: int = 0) -> Draft:
    """A turned sentence's draft, screened in `tier`."""
    answer = reference_sentence(fact.sentence, fact.turned.answer, language)
    span = " ".join(fact.turned.answer.split())
    return Draft(
        fact.turned.question, answer, answer_span=span, evidence=(fact.sentence,), strategy="sentence", tier=tier
    )


def combined_draft(combined: Combined) -> Draft:
    """A bridge or comparison question's draft, citing both blocks."""
    question, span = combined.question, " ".join(combined.span.split())
    blocks, evidence = combined.blocks, combined.evidence
    return Draft(
        question, combined.answer, blocks, "multi_context", answer_span=span, evidence=evidence, strategy="combined"
    )
