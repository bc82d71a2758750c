"""A degraded variant of the reference RAG, for the compare tests: its retriever loses its best hits.

    ragtest answer --rag tests.e2e.degraded_rag:DropBestContext --rag-arg store=RUN/chroma \
        --rag-arg collection=CORPUS_ID --rag-arg skip=4 ...

It asks the test set's store for skip + k chunks and drops the first `skip` (the most similar), then answers
extractively from the rest, as the reference RAG does: the same RAG with a worse retriever. With skip >= k it
answers from the wrong chunks altogether.
"""

from __future__ import annotations

import testgen
from rag_under_test import ReferenceRAG
from rag_under_test.reference import Passage
from ragtest_core.embeddings import get_embedder
from ragtest_core.schema import RAGAnswer


class DropBestContext:
    def __init__(self, store: str, collection: str, k: int = 4, skip: int = 1) -> None:
        embedder = get_embedder()
        self.skip = skip
        self.store = testgen.ChunkStore(store, embedder, collection=collection, create=False)
        self.rag = ReferenceRAG(self, k=k, embedder=embedder)

    def retrieve(self, question: str, k: int) -> list[Passage]:
        hits = self.store.query([question], k=k + self.skip)[0][self.skip :]
        return [Passage(id=hit.id, text=hit.text) for hit in hits]

    async def aanswer(self, question: str) -> RAGAnswer:
        return await self.rag.aanswer(question)
