"""The LLM judge's prompts (the RAGAS definitions) and the small schemas their replies must match.

Every prompt is two parts: instructions that are the same for every call of a kind (sent first, as a system
message, so a provider's prompt-prefix cache can reuse them; the schema text follows them when the provider takes no
schema natively), then the call's own data. Each `*_call` function returns the `PlannedCall` that a metric both
sends and plans (`--dry-run`), so what is planned is what is sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from ragtest_core.llm.plan import PlannedCall

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


class ContextVerdicts(BaseModel):
    verdicts: list[ContextVerdict] = Field(description="one verdict per context, in the order given")


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

STATEMENTS_INSTRUCTIONS = (
    "Given a question and an answer, break down each sentence of the answer into one or more fully "
    "understandable statements. Replace pronouns with the nouns they refer to. Do not add information that the "
    "answer does not state. A sentence that only declines to answer makes no statement. When a sentence cites "
    "sources with markers such as [1] or [2, 3], end each of its statements with the same markers."
)
FAITHFULNESS_INSTRUCTIONS = (
    "Judge the faithfulness of a series of statements to a given context. For each statement, in the same order, "
    "give verdict 1 if the statement can be directly inferred from the context, or 0 if it cannot, with a short "
    "reason."
)
QUESTIONS_INSTRUCTIONS = (
    f"Generate {QUESTIONS_TO_GENERATE} different questions that the given answer answers. Also say whether the "
    'answer is noncommittal: 1 if it is evasive, vague or ambiguous (for example "I don\'t know" or "I\'m not '
    'sure"), else 0.'
)
CONTEXT_RELEVANCE_INSTRUCTIONS = (
    "Extract the sentences of the context that are relevant to answering the question. Copy each relevant "
    "sentence exactly, without changing it. If no sentence is relevant, return an empty list."
)
_PRECISION_INSTRUCTIONS = (
    "Given a question, {a} {label} and numbered contexts, verify for each context whether it was useful in "
    "arriving at the given {label}. Give one verdict per context, in the order of the contexts: 1 if it was "
    "useful, 0 if not, with a short reason."
)
CONTEXT_PRECISION_INSTRUCTIONS = _PRECISION_INSTRUCTIONS.format(a="a", label="reference answer")
CONTEXT_PRECISION_ANSWER_INSTRUCTIONS = _PRECISION_INSTRUCTIONS.format(a="an", label="answer")
CONTEXT_RECALL_INSTRUCTIONS = (
    "Given a context and the sentences of a reference answer, classify each sentence, in the same order, as "
    "attributable to the context (1) or not (0), with a short reason."
)
CORRECTNESS_INSTRUCTIONS = (
    "Given a question, the statements of an answer and the statements of a ground truth, classify them: TP "
    "(answer statements supported by the ground truth), FP (answer statements not supported by the ground "
    "truth), FN (ground truth statements missing from the answer). Each statement goes into exactly one list, "
    "with a short reason."
)
SUPPORT_INSTRUCTIONS = (
    "Does the premise fully support the hypothesis? Give verdict 1 if everything the hypothesis states can be "
    "inferred from the premise, else 0, with a short reason."
)
REJECTION_INSTRUCTIONS = (
    "Does the answer decline to answer the question, or say that the information needed is not available? Give "
    "rejected 1 if it does, 0 if it gives an answer, with a short reason."
)
#: Every instruction the LLM judge sends, by call: what its settings (and fingerprint) record.
TEMPLATES: dict[str, str] = {
    "statements": STATEMENTS_INSTRUCTIONS,
    "faithfulness": FAITHFULNESS_INSTRUCTIONS,
    "questions": QUESTIONS_INSTRUCTIONS,
    "context_relevance": CONTEXT_RELEVANCE_INSTRUCTIONS,
    "context_precision": CONTEXT_PRECISION_INSTRUCTIONS,
    "context_precision_answer": CONTEXT_PRECISION_ANSWER_INSTRUCTIONS,
    "context_recall": CONTEXT_RECALL_INSTRUCTIONS,
    "correctness": CORRECTNESS_INSTRUCTIONS,
    "support": SUPPORT_INSTRUCTIONS,
    "rejection": REJECTION_INSTRUCTIONS,
}


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))


def _contexts(contexts: Sequence[str]) -> str:
    return "\n\n".join(f"[{i}] {c}" for i, c in enumerate(contexts, start=1))


def statements_call(question: str, answer: str) -> PlannedCall:
    """The answer broken into statements (the reply restates the answer): a step shared by every metric that
    judges statements (see `LLMJudge.statements`)."""
    data = f"question: {question}\n\nanswer: {answer}"
    return PlannedCall("statements.extract", data, Statements, echo=(answer,), instructions=STATEMENTS_INSTRUCTIONS)


def faithfulness_call(contexts: Sequence[str], statements: Sequence[str]) -> PlannedCall:
    data = f"context:\n{_contexts(contexts)}\n\nstatements:\n{_numbered(statements)}"
    return PlannedCall(
        "faithfulness.verdicts",
        data,
        StatementVerdicts,
        echo=tuple(statements),
        items=len(statements),
        instructions=FAITHFULNESS_INSTRUCTIONS,
    )


def entailment_call(stage: str, texts: Sequence[str], statements: Sequence[str]) -> PlannedCall:
    """Each statement judged against `texts` (the faithfulness instructions: one verdict per statement, in order);
    the claim diagnostics check answer claims against the reference, reference claims against the answer, and
    both against each context alone."""
    data = f"context:\n{_contexts(texts)}\n\nstatements:\n{_numbered(statements)}"
    return PlannedCall(
        stage,
        data,
        StatementVerdicts,
        echo=tuple(statements),
        items=len(statements),
        instructions=FAITHFULNESS_INSTRUCTIONS,
    )


def question_generation_call(answer: str) -> PlannedCall:
    """Questions generated from the answer alone (RAGAS)."""
    return PlannedCall(
        "answer_relevancy.questions",
        f"answer: {answer}",
        GeneratedQuestions,
        items=QUESTIONS_TO_GENERATE,
        instructions=QUESTIONS_INSTRUCTIONS,
    )


def context_relevance_call(question: str, contexts: Sequence[str]) -> PlannedCall:
    data = f"question: {question}\n\ncontext:\n{_contexts(contexts)}"
    return PlannedCall(
        "context_relevance.extract", data, RelevantSentences, instructions=CONTEXT_RELEVANCE_INSTRUCTIONS
    )


def context_precision_call(
    question: str, reference: str, contexts: Sequence[str], reference_is_answer: bool
) -> PlannedCall:
    """All of a row's contexts in one call, one verdict each, in rank order."""
    label = "answer" if reference_is_answer else "reference answer"
    instructions = CONTEXT_PRECISION_ANSWER_INSTRUCTIONS if reference_is_answer else CONTEXT_PRECISION_INSTRUCTIONS
    data = f"question: {question}\n\n{label}: {reference}\n\ncontexts:\n{_contexts(contexts)}"
    return PlannedCall(
        "context_precision.verdicts", data, ContextVerdicts, items=len(contexts), instructions=instructions
    )


def context_recall_call(question: str, contexts: Sequence[str], sentences: Sequence[str]) -> PlannedCall:
    data = f"question: {question}\n\ncontext:\n{_contexts(contexts)}\n\nreference sentences:\n{_numbered(sentences)}"
    return PlannedCall(
        "context_recall.attribution",
        data,
        Attributions,
        echo=tuple(sentences),
        items=len(sentences),
        instructions=CONTEXT_RECALL_INSTRUCTIONS,
    )


def correctness_call(
    question: str, answer_statements: Sequence[str], reference_statements: Sequence[str]
) -> PlannedCall:
    data = (
        f"question: {question}\n\nanswer statements:\n{_numbered(answer_statements)}\n\n"
        f"ground truth statements:\n{_numbered(reference_statements)}"
    )
    return PlannedCall(
        "answer_correctness.classify",
        data,
        CorrectnessClassification,
        echo=(*answer_statements, *reference_statements),
        items=len(answer_statements) + len(reference_statements),
        instructions=CORRECTNESS_INSTRUCTIONS,
    )


def support_call(stage: str, premise: str, hypothesis: str) -> PlannedCall:
    data = f"premise: {premise}\n\nhypothesis: {hypothesis}"
    return PlannedCall(stage, data, SupportVerdict, instructions=SUPPORT_INSTRUCTIONS)


def rejection_call(stage: str, question: str, answer: str) -> PlannedCall:
    data = f"question: {question}\n\nanswer: {answer}"
    return PlannedCall(stage, data, RejectionVerdict, instructions=REJECTION_INSTRUCTIONS)
