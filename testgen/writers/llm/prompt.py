"""What the LLM question writer asks and how it reads the reply: the seed prompt's nine rules plus one task per
question type, with block citations; the reply as JSON (`QAList`) or, when that fails, as `question:/answer:` text."""

from __future__ import annotations

import re
import zlib

from pydantic import BaseModel, Field

from ragtest_core.llm.plan import PlannedCall
from testgen.contexts import Context
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.question_types import QuestionType

STAGE = "testgen"
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "ja": "Japanese", "ko": "Korean"}

PROMPT = """Your task is to write exactly {n} question/answer pair(s) from the given context, \
numbered blocks [1] to [{blocks}]. {task}
The questions should satisfy the rules given below:
1. The question should make sense to humans even when read without the given context.
2. The question should be fully answered from the given context.
3. The question should be framed from a part of the context that contains important information. \
It can also be from tables, code, etc.
4. The answer to the question should not contain any links.
5. The question should be of moderate difficulty.
6. The question must be reasonable and must be understood and responded by humans.
7. Do not use phrases like 'provided context', 'according to the passage', etc. in the question.
8. Avoid framing a question using the word "and" that can be decomposed into more than one question.
9. The question should not contain more than {max_words} words; make use of abbreviations wherever possible.
Write each answer as a complete sentence that answers the question (not a bare name or number).
Write the questions and answers in {language}. For each pair, name the block numbers the answer came from.

context:
{context}
"""

#: one instruction per question type: each type is its own prompt.
TASKS: dict[str, str] = {
    "simple": "Each question asks for one fact stated in block [1]; the answer must come from the context only.",
    "reasoning": "Each question must need an inference over two or more facts of the context (combine, compare or "
    "deduce), not the lookup of one sentence; the answer states the conclusion and comes from the context only.",
    "multi_context": "Each answer must need information from block [1] AND from at least one other block; name "
    "every block used (at least two, including 1). The answer must come from the context only.",
    "conditional": "Each question must carry a condition or constraint (for example 'if', 'when', 'for', 'under', "
    "'in version X') that the answer depends on; the answer must come from the context only.",
    "unanswerable": "Each question must be one a reader of this topic would plausibly ask, on the same subject as "
    "block [1], but whose answer is NOT in the context. Give as answer the sentence 'The corpus does not contain "
    "this information.' and as hypothesis what the answer would say if it existed (one short sentence).",
    "distracting": "Each question asks about a fact of block [1] but also mentions a related yet irrelevant detail "
    "taken from one other block (the distractor); name that block as distractor. The answer comes from block [1] "
    "only.",
}


#: With personas (`testgen.personas`): the questions are the persona's, in its words.
PERSONA_TASK = "\nWrite each question as {name} would ask it, in their own words: {description}"


#: Multi-context questions over graph contexts (`Context.along_graph`: blocks from different sections): a root
#: asks the specific or the abstract kind, by its id (deterministic, about half each).
MULTI_HOP_TASKS: dict[str, str] = {
    "specific": "The blocks come from different sections of the documents. Each question must be a specific "
    "multi-hop question: its answer needs a fact of block [1] AND a fact of another block (the answer to one part "
    "names what the other part is about, or it compares two named things of the same kind), so that no single "
    "block answers it alone. Name every block used (at least two, including 1). The answer must come from the "
    "context only.",
    "abstract": "The blocks come from different sections of the documents. Each question must be an abstract "
    "multi-hop question: it asks about a theme, a trade-off or a relation that block [1] and at least one other "
    "block each answer in part, so that no single block answers it alone. Name every block used (at least two, "
    "including 1). The answer must come from the context only.",
}


class QAPair(BaseModel):
    question: str
    answer: str
    blocks: list[int] = Field(default_factory=list, description="numbers of the blocks the answer came from")
    distractor: int | None = Field(default=None, description="distracting questions: the distractor's block number")
    hypothesis: str | None = Field(default=None, description="unanswerable questions: what an answer would say")


class QAList(BaseModel):
    pairs: list[QAPair]


def writer_call(
    context: Context, n: int, question_type: QuestionType = "simple", max_words: int = DEFAULT_MAX_WORDS
) -> PlannedCall:
    """The structured call `LLMWriter.write` makes: one per context, `n` pairs of `question_type` expected. Its task
    is the question type's; a graph context's root asks the specific or the abstract multi-hop kind, by its id; with
    a persona, in the persona's wording."""
    task = TASKS[question_type]
    if question_type == "multi_context" and context.along_graph:
        task = MULTI_HOP_TASKS["abstract" if zlib.crc32(context.root.chunk_id.encode()) % 2 else "specific"]
    if persona := context.persona:
        task += PERSONA_TASK.format(name=persona.name, description=persona.description)
    language = LANGUAGE_NAMES.get(context.language, context.language)
    prompt = PROMPT.format(
        n=n, blocks=len(context.blocks), task=task, max_words=max_words, language=language, context=context.render()
    )
    return PlannedCall(STAGE, prompt, QAList, items=n, question_type=question_type)


_SEPARATOR = re.compile(r"^\s*X{3,}\s*$", re.MULTILINE)
_FIELD = re.compile(
    r"^\s*(?:\d+[.)]\s*)?[*_]*(?P<key>question|answer|blocks?|sources?|context)[*_]*\s*[:：]\s*(?P<value>.*)$",
    re.IGNORECASE,
)


def parse_text_pairs(reply: str) -> list[QAPair]:
    """Pairs from `question: ... answer: ... blocks: ...` text, separated by XXX lines (or new questions)."""
    pairs: list[QAPair] = []
    for part in _SEPARATOR.split(reply.replace("```", "\n")):
        current: dict[str, str] = {}
        key = ""
        for line in part.splitlines():
            match = _FIELD.match(line)
            if match:
                key = match.group("key").lower().rstrip("s")
                if key == "question" and "question" in current:
                    _append_pair(pairs, current)
                    current = {}
                current[key] = match.group("value").strip()
            elif key in ("question", "answer") and line.strip():
                current[key] = f"{current[key]} {line.strip()}"
        _append_pair(pairs, current)
    return pairs


def _append_pair(pairs: list[QAPair], fields: dict[str, str]) -> None:
    question, answer = fields.get("question", "").strip(), fields.get("answer", "").strip()
    if question and answer:
        cited = fields.get("block") or fields.get("source") or fields.get("context") or ""
        pairs.append(QAPair(question=question, answer=answer, blocks=[int(d) for d in re.findall(r"\d+", cited)]))
