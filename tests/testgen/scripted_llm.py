"""A content-based responder that plays a question-writing LLM (and its critic) for tests and benchmarks.

It reads the blocks out of the prompt, turns their sentences with the extractive rules and answers in the JSON
the prompt asks for, one shape per question type, so the LLM writer's whole path (prompts per type, parsing,
filters, critic) runs without a hosted model. Use it with `ScriptedChatModel(responder=...)` or as the
`responder` of the OpenAI-compatible stub server (`lambda request: respond(request.prompt)`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from ragtest_core.schema import stable_id
from ragtest_core.text import detect_language, split_sentences
from testgen.chunking import Chunk
from testgen.writers.base import Turned
from testgen.writers.extractive import ExtractiveWriter
from testgen.writers.llm import TASKS
from testgen.writers.llm.prompt import MULTI_HOP_TASKS
from testgen.writers.sentences.reference import reference_sentence

_BLOCK = re.compile(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\Z)", re.DOTALL | re.MULTILINE)
_writer = ExtractiveWriter()


def _blocks(prompt: str) -> dict[int, str]:
    body = prompt.split("context:\n", 1)[-1].split("\n\nRespond with", 1)[0]
    return {int(n): text.strip() for n, text in _BLOCK.findall(body)}


def _facts(text: str) -> list[Turned]:
    """The extractive rules' questions, answered with their sentence (as the writer prompt asks), else one about a
    name in the text (as a model would find one)."""
    language = detect_language(text)
    chunk = Chunk(chunk_id=stable_id(text), text=text, doc_id="d", source="s", position=0, language=language)
    facts = [
        replace(fact.turned, answer=reference_sentence(fact.sentence, fact.turned.answer, language))
        for fact in _writer.facts(chunk)
    ]
    if facts:
        return facts
    for sentence in split_sentences(text):
        name = re.search(r"(?<=[a-z,] )([A-Z][a-z]+(?: [A-Z][a-z]+)?)", sentence)
        if name and 8 <= len(sentence.split()) <= 30:
            return [Turned(f"What is known about {name.group(1)}?", sentence, "fallback", name.group(1))]
    return []


def _type_of(prompt: str) -> str:
    if any(task in prompt for task in MULTI_HOP_TASKS.values()):
        return "multi_context"
    return next((kind for kind, task in TASKS.items() if task in prompt), "simple")


def write_reply(prompt: str) -> str:
    """The JSON a good writer model would give for this question-writing prompt: as many pairs as asked for, from
    different facts of block [1] (fewer when the block has fewer)."""
    wanted = int(match.group(1)) if (match := re.search(r"write exactly (\d+)", prompt)) else 1
    blocks = _blocks(prompt)
    kind = _type_of(prompt)
    root = _facts(blocks.get(1, ""))
    other_number = next((n for n in sorted(blocks) if n != 1), None)
    other = _facts(blocks[other_number]) if other_number else []
    pairs: list[dict[str, object]] = []
    middle = len(root) // 2
    for fact in (root[middle:] + root[:middle])[:wanted]:
        subject = fact.subject or fact.answer
        if kind == "simple":
            pairs.append({"question": fact.question, "answer": fact.answer, "blocks": [1]})
        elif kind == "reasoning":
            pairs.append(
                {
                    "question": f"Why does it matter that {fact.question[0].lower()}{fact.question[1:]}",
                    "answer": fact.answer,
                    "blocks": [1],
                }
            )
        elif kind == "conditional" and fact.question.startswith(("What", "When", "Who", "Where", "How")):
            pairs.append({"question": f"{fact.question[:-1]}, if documented?", "answer": fact.answer, "blocks": [1]})
        elif kind == "multi_context" and other:
            second = other[0]
            pairs.append(
                {"question": fact.question, "answer": f"{fact.answer} {second.answer}", "blocks": [1, other_number]}
            )
        elif kind == "unanswerable":
            pairs.append(
                {
                    "question": f"What did {subject} cost in 1850?",
                    "answer": "The corpus does not contain this information.",
                    "blocks": [1],
                    "hypothesis": f"{subject} cost 41 million dollars in 1850.",
                }
            )
        elif kind == "distracting" and other:
            detail = other[0].subject or other[0].answer
            pairs.append(
                {
                    "question": f"{fact.question[:-1]}, unlike {detail}?",
                    "answer": fact.answer,
                    "blocks": [1],
                    "distractor": other_number,
                }
            )
    return json.dumps({"pairs": pairs}, ensure_ascii=False)


CRITIC_MARK = "You check question/answer pairs"
ANSWERABLE_MARK = "Can each question below be answered"


def numbered(prompt: str, section: str) -> list[int]:
    """The item numbers listed in the critic prompt's `section` ("pairs:" or "questions:")."""
    body = prompt.split(f"\n{section}\n", 1)[-1].split("\n\npassages:", 1)[0]
    return [int(n) for n in re.findall(r"^(\d+)\. ", body, re.MULTILINE)]


def respond(prompt: str) -> str:
    """Replies to writer prompts and to the critic's prompts (grounded: yes; answerable: no), one verdict per item."""
    if CRITIC_MARK in prompt:
        verdicts = [
            {"pair": n, "supported": True, "standalone": True, "reason": "stated in the blocks"}
            for n in numbered(prompt, "pairs:")
        ]
        return json.dumps({"verdicts": verdicts})
    if ANSWERABLE_MARK in prompt:
        verdicts = [
            {"question": n, "answerable": False, "reason": "the passages do not say"}
            for n in numbered(prompt, "questions:")
        ]
        return json.dumps({"verdicts": verdicts})
    return write_reply(prompt)
