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
_PRECISION = (
    "Given a question, {a} {label} and numbered contexts, verify for each context whether it was useful in "
    "arriving at the given {label}. Give one verdict per context, in the order of the contexts: 1 if it was "
    "useful, 0 if not, with a short reason."
)
#: Every instruction the LLM judge sends, by call: what its settings (and fingerprint) record.
TEMPLATES: dict[str, str] = {
    "statements": "Given a question and an answer, break down each sentence of the answer into one or more fully "
    "understandable statements. Replace pronouns with the nouns they refer to. Do not add information that the "
    "answer does not state. A sentence that only declines to answer makes no statement. When a sentence cites "
    "sources with markers such as [1] or [2, 3], end each of its statements with the same markers.",
    "faithfulness": "Judge the faithfulness of a series of statements to a given context. For each statement, in the "
    "same order, give verdict 1 if the statement can be directly inferred from the context, or 0 if it cannot, with a "
    "short reason.",
    "questions": f"Generate {QUESTIONS_TO_GENERATE} different questions that the given answer answers. Also say "
    'whether the answer is noncommittal: 1 if it is evasive, vague or ambiguous (for example "I don\'t know" or '
    '"I\'m not sure"), else 0.',
    "context_relevance": "Extract the sentences of the context that are relevant to answering the question. Copy "
    "each relevant sentence exactly, without changing it. If no sentence is relevant, return an empty list.",
    "context_precision": _PRECISION.format(a="a", label="reference answer"),
    "context_precision_answer": _PRECISION.format(a="an", label="answer"),
    "context_recall": "Given a context and the sentences of a reference answer, classify each sentence, in the same "
    "order, as attributable to the context (1) or not (0), with a short reason.",
    "correctness": "Given a question, the statements of an answer and the statements of a ground truth, classify "
    "them: TP (answer statements supported by the ground truth), FP (answer statements not supported by the ground "
    "truth), FN (ground truth statements missing from the answer). Each statement goes into exactly one list, with "
    "a short reason.",
    "support": "Does the premise fully support the hypothesis? Give verdict 1 if everything the hypothesis states "
    "can be inferred from the premise, else 0, with a short reason.",
    "rejection": "Does the answer decline to answer the question, or say that the information needed is not "
    "available? Give rejected 1 if it does, 0 if it gives an answer, with a short reason.",
}


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))


def _contexts(contexts: Sequence[str]) -> str:
    return "\n\n".join(f"[{i}] {c}" for i, c in enumerate(contexts, start=1))


def _call(
    stage: str, template: str, data: str, schema: type[BaseModel], echo: Sequence[str] | None = None, items: int = 1
) -> PlannedCall:
    """A call with the `template` instructions; a reply restating `echo` holds one item per text echoed."""
    items = items if echo is None else len(echo)
    return PlannedCall(stage, data, schema, echo=tuple(echo or ()), items=items, instructions=TEMPLATES[template])


def statements_call(question: str, answer: str) -> PlannedCall:
    """The answer broken into statements (the reply restates the answer): a step shared by every metric that
    judges statements (see `LLMJudge.statements`)."""
    return _call("statements.extract", "statements", f"question: {question}\n\nanswer: {answer}", Statements, (answer,))


def entailment_call(stage: str, texts: Sequence[str], statements: Sequence[str]) -> PlannedCall:
    """Each statement judged against `texts` (the faithfulness instructions: one verdict per statement, in order):
    faithfulness against the contexts; the claim diagnostics answer claims against the reference, reference claims
    against the answer, and both against each context alone."""
    data = f"context:\n{_contexts(texts)}\n\nstatements:\n{_numbered(statements)}"
    return _call(stage, "faithfulness", data, StatementVerdicts, statements)


def question_generation_call(answer: str) -> PlannedCall:
    """Questions generated from the answer alone (RAGAS)."""
    data = f"answer: {answer}"
    return _call("answer_relevancy.questions", "questions", data, GeneratedQuestions, items=QUESTIONS_TO_GENERATE)


def context_relevance_call(question: str, contexts: Sequence[str]) -> PlannedCall:
    data = f"question: {question}\n\ncontext:\n{_contexts(contexts)}"
    return _call("context_relevance.extract", "context_relevance", data, RelevantSentences)


def context_precision_call(
    question: str, reference: str, contexts: Sequence[str], reference_is_answer: bool
) -> PlannedCall:
    """All of a row's contexts in one call, one verdict each, in rank order."""
    label = "answer" if reference_is_answer else "reference answer"
    template = "context_precision_answer" if reference_is_answer else "context_precision"
    data = f"question: {question}\n\n{label}: {reference}\n\ncontexts:\n{_contexts(contexts)}"
    return _call("context_precision.verdicts", template, data, ContextVerdicts, items=len(contexts))


def context_recall_call(question: str, contexts: Sequence[str], sentences: Sequence[str]) -> PlannedCall:
    data = f"question: {question}\n\ncontext:\n{_contexts(contexts)}\n\nreference sentences:\n{_numbered(sentences)}"
    return _call("context_recall.attribution", "context_recall", data, Attributions, sentences)


def correctness_call(
    question: str, answer_statements: Sequence[str], reference_statements: Sequence[str]
) -> PlannedCall:
    data = (
        f"question: {question}\n\nanswer statements:\n{_numbered(answer_statements)}\n\n"
        f"ground truth statements:\n{_numbered(reference_statements)}"
    )
    echo = [*answer_statements, *reference_statements]
    return _call("answer_correctness.classify", "correctness", data, CorrectnessClassification, echo)


def support_call(stage: str, premise: str, hypothesis: str) -> PlannedCall:
    return _call(stage, "support", f"premise: {premise}\n\nhypothesis: {hypothesis}", SupportVerdict)


def rejection_call(stage: str, question: str, answer: str) -> PlannedCall:
    return _call(stage, "rejection", f"question: {question}\n\nanswer: {answer}", RejectionVerdict)
