"""The LLM question writer: one structured call per context and question type through `LLMClient` (cached,
retried, rate limited), the reply turned into drafts. Questions and answers are asked for in the source's
language (`testgen.writers.llm.prompt`)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ragtest_core.errors import LLMError, LLMOutputError, LLMPermanentError
from testgen.contexts import Context
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.question_types import QuestionType, refusal
from testgen.writers.base import Draft, QuestionWriter
from testgen.writers.llm.prompt import QAList, QAPair, parse_text_pairs, writer_call

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models (seconds of start-up)
    from ragtest_core.llm.client import LLMClient


class LLMWriter(QuestionWriter):
    """Questions written by a chat model through `LLMClient` (cached, retried, rate limited), one prompt per type."""

    llm: LLMClient
    #: Two pairs per call: the critic then judges both in one call, so a context costs two calls for two samples.
    default_questions_per_context = 2

    def __init__(self, llm: LLMClient, max_words: int = DEFAULT_MAX_WORDS) -> None:
        self.llm = llm
        self.max_words = max_words
        self.name = f"llm:{llm.model_id}"
        #: Counts: calls, replies parsed as JSON or as text, unparseable replies, failed calls.
        self.stats: Counter[str] = Counter()

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]:
        call = writer_call(context, n, question_type, self.max_words)
        self.stats["calls"] += 1
        read_as_text: list[bool] = []

        def text_pairs(reply: str) -> QAList | None:
            """A reply that is not JSON, read as `question:/answer:` text (after the repair round failed)."""
            pairs = parse_text_pairs(reply)
            read_as_text.append(bool(pairs))
            return QAList(pairs=pairs) if pairs else None

        try:
            result = await self.llm.structured(call.prompt, QAList, stage=call.stage, fallback=text_pairs)
        except LLMOutputError:
            self.stats["unparseable"] += 1
            return []
        except LLMPermanentError:
            raise  # a bad key, an unknown model, or a model that cannot do the job stops the run at once
        except LLMError as exc:
            self.stats["failed_calls"] += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            return []
        self.stats["parsed_text" if any(read_as_text) else "parsed_json"] += 1
        return [self._draft(pair, context, question_type) for pair in result.pairs[:n]]

    @staticmethod
    def _draft(pair: QAPair, context: Context, question_type: QuestionType = "simple") -> Draft:
        blocks = tuple(dict.fromkeys(b for b in pair.blocks if context.block(b) is not None)) or (1,)
        distractor = (pair.distractor,) if pair.distractor and context.block(pair.distractor) is not None else ()
        answer = refusal(context.language) if question_type == "unanswerable" else pair.answer.strip()
        hypothesis = (pair.hypothesis or "").strip() or None
        return Draft(pair.question.strip(), answer, blocks, question_type, distractor, hypothesis)
