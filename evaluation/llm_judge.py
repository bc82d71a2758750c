"""The LLM judge: holds the client and the embedder (answer_relevancy compares question embeddings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragtest_core.embeddings import Embedder

if TYPE_CHECKING:  # annotations only: the client module imports LangChain's chat models (seconds)
    from ragtest_core.llm.client import LLMClient


@dataclass
class LLMJudge:
    """An `LLMClient` for the prompt steps and an `Embedder` for the embedding steps."""

    llm: LLMClient
    embedder: Embedder
    #: The reference mean for centred similarities (set by the engine; see `evaluation.centring`).
    reference_mean: np.ndarray | None = None
