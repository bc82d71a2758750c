"""The data contract shared by every stage: test samples, RAG answers and scores.

A dataset on disk is a table with one row per test sample (see docs/design.md). The stage packages exchange
only these types and the column names below; none of them reaches into another stage's internals.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Column names (ragas-compatible).
QUESTION = "question"
GROUND_TRUTH = "ground_truth"
REFERENCE_CONTEXTS = "reference_contexts"
REFERENCE_CONTEXT_IDS = "reference_context_ids"
QUESTION_TYPE = "question_type"
SOURCE = "source"
ANSWER = "answer"
CONTEXTS = "contexts"
CONTEXT_IDS = "context_ids"
ANSWER_ERROR = "answer_error"
SAMPLE_ID = "sample_id"
ANSWER_SPAN = "answer_span"
CORPUS_ID = "corpus_id"
#: What `ragtest refresh` did to a row of a refreshed test set: kept, moved, updated or new.
REFRESH_STATUS = "refresh_status"
#: Written by testgen only when asked for (`--personas`, `--query-styles`, `--query-lengths`): who asks, how the
#: question is typed and how long it is, and the question as written before it was styled.
PERSONA = "persona"
QUERY_STYLE = "query_style"
QUERY_LENGTH = "query_length"
CANONICAL_QUESTION = "canonical_question"
#: Written by testgen on a sample with two or more gold contexts (multi-context and multi-hop questions): how many.
HOPS = "hops"
#: Written by evaluate with a retrieval metric: each retrieved context's gold id where it is a gold chunk (by id or
#: text), else its own id, so ID-based metrics elsewhere (ragas' IDBasedContextPrecision/Recall) read the mapping.
MAPPED_CONTEXT_IDS = "mapped_context_ids"

#: ragas' newer column names, mapped onto ours when a dataset is read.
RAGAS_ALIASES: dict[str, str] = {
    "user_input": QUESTION,
    "response": ANSWER,
    "retrieved_contexts": CONTEXTS,
    "reference": GROUND_TRUTH,
    "retrieved_context_ids": CONTEXT_IDS,
    "reference_context_ids": REFERENCE_CONTEXT_IDS,
}

#: Columns holding lists of strings.
LIST_COLUMNS: tuple[str, ...] = (REFERENCE_CONTEXTS, REFERENCE_CONTEXT_IDS, CONTEXTS, CONTEXT_IDS, "neighbour_ids")


def reason_column(metric: str) -> str:
    """The column that explains a metric's score (or why it is missing)."""
    return f"{metric}_reason"


def stable_id(*parts: str, length: int = 12) -> str:
    """A short content hash: the same parts always give the same id."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:length]


class TestSample(BaseModel):
    """One generated question with its reference answer and gold contexts."""

    __test__ = False  # not a pytest class
    model_config = ConfigDict(extra="allow")

    sample_id: str
    question: str
    ground_truth: str
    reference_contexts: list[str] = Field(default_factory=list)
    reference_context_ids: list[str] = Field(default_factory=list)
    question_type: str = "simple"
    source: str = ""
    source_url: str | None = None
    source_revision: str | None = None
    root_id: str = ""
    neighbour_ids: list[str] = Field(default_factory=list)
    language: str = "en"
    writer: str = ""
    #: The short answer (a name, date or phrase) inside `ground_truth`, for exact match and token F1.
    answer_span: str | None = None
    #: The vector store collection holding this test set's corpus (its gold chunks), for the reference RAG.
    corpus_id: str | None = None


class RAGAnswer(BaseModel):
    """What the RAG system under test returned for one question."""

    answer: str
    contexts: list[str] = Field(default_factory=list)
    context_ids: list[str] | None = None
    error: str | None = None
    latency_s: float | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


class MetricResult(BaseModel):
    """A metric's outcome for one row: a score in [0, 1], or no score and a reason. Never NaN."""

    value: float | None
    reason: str = ""
    details: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def ok(cls, value: float, reason: str = "", **details: Any) -> MetricResult:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"score {value!r} is outside [0, 1]")
        return cls(value=float(value), reason=reason, details=details)

    @classmethod
    def failed(cls, reason: str, **details: Any) -> MetricResult:
        if not reason:
            raise ValueError("a missing score needs a reason")
        return cls(value=None, reason=reason, details=details)

    @property
    def scored(self) -> bool:
        return self.value is not None
