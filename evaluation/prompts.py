"""The LLM judge's prompts (the RAGAS definitions) and the small schemas their replies must match."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

# -- schemas ------------------------------------------------------------------------------------------------------


class Statements(BaseModel):
    statements: list[str] = Field(description="standalone statements made by the answer")


class StatementVerdict(BaseModel):
    statement: str = ""
    reason: str = ""
    verdict: int = Field(ge=0, le=1, description="1 if the statement can be inferred from the context, else 0")


class StatementVerdicts(BaseModel):
    verdicts: list[StatementVerdict]


class GeneratedQuestions(BaseModel):
    questions: list[str] = Field(description="questions that the answer answers")
    noncommittal: int = Field(ge=0, le=1, description="1 if the answer is evasive, vague or ambiguous, else 0")


class RelevantSentences(BaseModel):
    sentences: list[str] = Field(description="sentences copied unchanged from the context")


class ContextVerdict(BaseModel):
    reason: str = ""
    verdict: int = Field(ge=0, le=1, description="1 if the context was useful, else 0")


class SentenceAttribution(BaseModel):
    sentence: str = ""
    reason: str = ""
    attributed: int = Field(ge=0, le=1, description="1 if the sentence can be attributed to the context, else 0")


class Attributions(BaseModel):
    classifications: list[SentenceAttribution]


class ClassifiedStatement(BaseModel):
    statement: str
    reason: str = ""


class CorrectnessClassification(BaseModel):
    TP: list[ClassifiedStatement] = Field(default_factory=list, description="answer statements the reference supports")
    FP: list[ClassifiedStatement] = Field(default_factory=list, description="answer statements the reference lacks")
    FN: list[ClassifiedStatement] = Field(default_factory=list, description="reference statements the answer lacks")


class SupportVerdict(BaseModel):
    reason: str = ""
    verdict: int = Field(ge=0, le=1, description="1 if the premise fully supports the hypothesis, else 0")


class RejectionVerdict(BaseModel):
    reason: str = ""
    rejected: int = Field(ge=0, le=1, description="1 if the answer declines to answer or says it lacks information")


# -- prompts ------------------------------------------------------------------------------------------------------

QUESTIONS_TO_GENERATE = 3


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))


def _contexts(contexts: Sequence[str]) -> str:
    return "\n\n".join(f"[{i}] {c}" for i, c in enumerate(contexts, start=1))


def statements_prompt(question: str, answer: str) -> str:
    return (
        "Given a question and an answer, break down each sentence of the answer into one or more fully "
        "understandable statements. Replace pronouns with the nouns they refer to. Do not add information "
        "that the answer does not state. A sentence that only declines to answer makes no statement.\n\n"
        f"question: {question}\n\nanswer: {answer}"
    )


def faithfulness_prompt(contexts: Sequence[str], statements: Sequence[str]) -> str:
    return (
        "Judge the faithfulness of a series of statements to a given context. For each statement, in the same "
        "order, give verdict 1 if the statement can be directly inferred from the context, or 0 if it cannot, "
        "with a short reason.\n\n"
        f"context:\n{_contexts(contexts)}\n\nstatements:\n{_numbered(statements)}"
    )


def question_generation_prompt(answer: str, contexts: Sequence[str]) -> str:
    context_part = f"\n\ncontext:\n{_contexts(contexts)}" if contexts else ""
    return (
        f"Generate {QUESTIONS_TO_GENERATE} different questions that the given answer answers. Also say whether "
        'the answer is noncommittal: 1 if it is evasive, vague or ambiguous (for example "I don\'t know" or '
        '"I\'m not sure"), else 0.\n\n'
        f"answer: {answer}{context_part}"
    )


def context_relevance_prompt(question: str, contexts: Sequence[str]) -> str:
    return (
        "Extract the sentences of the context that are relevant to answering the question. Copy each relevant "
        "sentence exactly, without changing it. If no sentence is relevant, return an empty list.\n\n"
        f"question: {question}\n\ncontext:\n{_contexts(contexts)}"
    )


def context_precision_prompt(question: str, reference: str, context: str, reference_is_answer: bool) -> str:
    label = "answer" if reference_is_answer else "reference answer"
    return (
        f"Given a question, a {label} and a context, verify whether the context was useful in arriving at the "
        f"given {label}. Give verdict 1 if it was useful, 0 if not, with a short reason.\n\n"
        f"question: {question}\n\n{label}: {reference}\n\ncontext: {context}"
    )


def context_recall_prompt(question: str, contexts: Sequence[str], sentences: Sequence[str]) -> str:
    return (
        "Given a context and the sentences of a reference answer, classify each sentence, in the same order, as "
        "attributable to the context (1) or not (0), with a short reason.\n\n"
        f"question: {question}\n\ncontext:\n{_contexts(contexts)}\n\nreference sentences:\n{_numbered(sentences)}"
    )


def correctness_prompt(question: str, answer_statements: Sequence[str], reference_statements: Sequence[str]) -> str:
    return (
        "Given a question, the statements of an answer and the statements of a ground truth, classify them: TP "
        "(answer statements supported by the ground truth), FP (answer statements not supported by the ground "
        "truth), FN (ground truth statements missing from the answer). Each statement goes into exactly one "
        "list, with a short reason.\n\n"
        f"question: {question}\n\nanswer statements:\n{_numbered(answer_statements)}\n\n"
        f"ground truth statements:\n{_numbered(reference_statements)}"
    )


def support_prompt(premise: str, hypothesis: str) -> str:
    return (
        "Does the premise fully support the hypothesis? Give verdict 1 if everything the hypothesis states can "
        "be inferred from the premise, else 0, with a short reason.\n\n"
        f"premise: {premise}\n\nhypothesis: {hypothesis}"
    )


def rejection_prompt(question: str, answer: str) -> str:
    return (
        "Does the answer decline to answer the question, or say that the information needed is not available? "
        "Give rejected 1 if it does, 0 if it gives an answer, with a short reason.\n\n"
        f"question: {question}\n\nanswer: {answer}"
    )
