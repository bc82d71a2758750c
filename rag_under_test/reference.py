"""The reference RAG: top-k retrieval through a `Retriever`, then an answer.

The app gives it the test set's own store, or an index of its own over the test set's documents (`ragtest.rag_index`,
docs/concepts.md). With an LLM it answers from the retrieved chunks only; offline, an extractive reader (on
`embedder`, the retrieval's model) returns the retrieved sentences that best support an answer to the question. It
is a baseline to compare your own RAG against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.schema import RAGAnswer
from ragtest_core.text import content_tokens, split_sentences

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models (seconds of start-up)
    from ragtest_core.llm import LLMClient

REFUSAL = "I don't know: the retrieved documents do not answer this question."
#: A sentence joins the extractive answer when its score is within this margin of the best sentence.
ANSWER_MARGIN = 0.05
#: Below this score no retrieved sentence is about the question, and the reader refuses.
MIN_SUPPORT = 0.35
#: How many sentences the extractive answer keeps at most.
MAX_ANSWER_SENTENCES = 2
#: Weight of lexical overlap against embedding similarity in a sentence's score.
LEXICAL_WEIGHT = 0.5

ANSWER_PROMPT = """Answer the question using only the numbered context passages below.
Answer in one to three sentences, in the language of the question. If the passages do not contain the answer,
reply exactly: "I don't know."

{context}

Question: {question}
Answer:"""


#: The runtime's call label of the reference RAG's answers.
STAGE = "rag_answer"


def answer_prompt(question: str, contexts: Sequence[str]) -> str:
    """The reference RAG's prompt: the numbered retrieved passages and the question."""
    numbered = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(contexts, start=1))
    return ANSWER_PROMPT.format(context=numbered, question=question)


def plan_llm_calls(questions: Iterable[tuple[str, Sequence[str]]]) -> list[PlannedCall]:
    """One answer call per (question, retrieved contexts): what `ReferenceRAG.aanswer` sends with an LLM (for
    `--dry-run` estimates)."""
    return [PlannedCall(STAGE, answer_prompt(question, contexts)) for question, contexts in questions]


@dataclass(frozen=True)
class Passage:
    id: str
    text: str


class Retriever(Protocol):
    def retrieve(self, question: str, k: int) -> list[Passage]: ...


class ReferenceRAG:
    """Top-k retrieval, then an LLM answer (when `llm` is given) or an extractive answer (offline)."""

    def __init__(
        self, retriever: Retriever, k: int = 4, llm: LLMClient | None = None, embedder: Embedder | None = None
    ) -> None:
        self.retriever = retriever
        self.k = k
        self.llm = llm
        self.embedder = embedder or get_embedder()

    async def aanswer(self, question: str) -> RAGAnswer:
        passages = self.retriever.retrieve(question, self.k)
        contexts = [p.text for p in passages]
        ids = [p.id for p in passages]
        if self.llm is not None:
            reply = await self.llm.text(answer_prompt(question, contexts), stage=STAGE)
            return RAGAnswer(answer=reply.strip(), contexts=contexts, context_ids=ids)
        return RAGAnswer(answer=self.extract_answer(question, contexts), contexts=contexts, context_ids=ids)

    def extract_answer(self, question: str, contexts: Sequence[str]) -> str:
        """The best-supported retrieved sentences, in retrieval order, or a refusal when none fits."""
        sentences = list(dict.fromkeys(s for text in contexts for s in split_sentences(text)))
        if not sentences:
            return REFUSAL
        scores = self.sentence_scores(question, sentences)
        best = float(scores.max())
        if best < MIN_SUPPORT:
            return REFUSAL
        ranked = [i for i in np.argsort(-scores, kind="stable") if scores[i] >= best - ANSWER_MARGIN]
        return " ".join(sentences[i] for i in sorted(ranked[:MAX_ANSWER_SENTENCES]))

    def sentence_scores(self, question: str, sentences: Sequence[str]) -> np.ndarray:
        """Embedding cosine with the question plus the share of the question's content words in the sentence."""
        cosine = self.embedder.similarity([question], list(sentences))[0]
        asked = set(content_tokens(question))
        lexical = np.array(
            [len(asked & set(content_tokens(s))) / len(asked) if asked else 0.0 for s in sentences], dtype=np.float32
        )
        return np.asarray((1 - LEXICAL_WEIGHT) * cosine + LEXICAL_WEIGHT * lexical)
