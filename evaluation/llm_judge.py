"""The LLM judge: the client for the prompt steps, the embedder for the embedding steps, and what a run shares.

Within one run the judge sends each distinct prompt once (`ask` memoises by the prompt and schema, so
citation_recall and citation_precision share their support verdicts, noise_robustness its correctness call with
answer_correctness), and extracts each text's statements once (`statements`: faithfulness, answer_correctness and
the citation metrics share them). CPU work runs in `cpu` (see `evaluation.cpu_work`), never on the event loop.
Each row asks through its own view of the run's judge (`for_row`): the same memo and CPU worker, its calls queued
at the row's place; a judge of a later repeat (`repeat`) asks again, past the cache entries of the first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from pydantic import BaseModel

from evaluation.cpu_work import CPUWorker
from evaluation.prompts import Statements, statements_call
from ragtest_core.embeddings import Embedder
from ragtest_core.llm.plan import PlannedCall

if TYPE_CHECKING:  # annotations only: the client module imports LangChain's chat models (seconds)
    from ragtest_core.llm.client import LLMClient

T = TypeVar("T", bound=BaseModel)
#: The priority of a call that other calls wait for (statements before their verdicts).
FIRST_STEP = 1


@dataclass
class LLMJudge:
    """An `LLMClient` for the prompt steps and an `Embedder` for the embedding steps."""

    llm: LLMClient
    embedder: Embedder
    #: The fixed reference mean for centred similarities (`ragtest_core.relevance.load_centring_mean`, shipped with
    #: the package; never taken from the rows), set by the engine when it makes the judge.
    reference_mean: np.ndarray | None = None
    #: Which repeat of the run's judgements this judge asks (`repeats`): repeat r > 0 gets its own cache entries.
    repeat: int = 0
    #: The row this judge's calls serve: among calls of equal priority, earlier rows leave the client's queue first.
    order: int = 0
    _memo: dict[Hashable, asyncio.Future[Any]] = field(default_factory=dict, repr=False)
    _cpu: CPUWorker | None = field(default=None, repr=False)

    @property
    def cpu(self) -> CPUWorker:
        if self._cpu is None:
            self._cpu = CPUWorker(self.embedder)
        return self._cpu

    def for_row(self, order: int) -> LLMJudge:
        """This judge for one row: the same client, memo and CPU worker; its calls queue at the row's place."""
        return replace(self, order=order, _cpu=self.cpu)

    async def ask(self, call: PlannedCall, schema: type[T], priority: int = 0) -> T:
        """The reply to `call`, parsed into `schema`; a prompt already asked in this run is not sent again."""
        if call.schema is not schema:
            raise ValueError(f"{call.stage}: planned with {call.schema}, asked for {schema.__name__}")
        key = (call.text(), schema)
        future = self._memo.get(key)
        if future is None or future.get_loop() is not asyncio.get_running_loop():
            messages = call.base_messages()
            future = asyncio.ensure_future(
                self.llm.structured(
                    messages, schema, stage=call.stage, priority=priority, order=self.order, repeat=self.repeat
                )
            )
            self._memo[key] = future
        result: T = await asyncio.shield(future)
        return result

    async def statements(self, question: str, text: str) -> list[str]:
        """The statements `text` makes (citation markers kept), extracted once per run."""
        extracted = await self.ask(statements_call(question, text), Statements, priority=FIRST_STEP)
        return [s.strip() for s in extracted.statements if s.strip()]

    def close(self) -> None:
        """Stop the CPU worker and forget the run's replies."""
        if self._cpu is not None:
            self._cpu.close()
        self._memo.clear()
