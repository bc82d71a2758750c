"""A plausible responder for the OpenAI stub server: it answers ragtest's own prompts by content, with JSON.

    server = OpenAIStubServer(responder=PlausibleResponder())

It recognises the question writer's prompt (testgen), the reference RAG's answer prompt (rag_under_test) and
every LLM judge prompt (evaluation), and answers each the way a careful small model would: questions drawn from
the root block, answers copied from the passages that share most words with the question, statements split from
the answer, verdicts from word overlap. Replies depend only on the original prompt (the system message and the first
user message), so a retry, a repair round or a re-run gets the same content, and a faulted run scores exactly like a
clean one. Judge prompts put their instructions first (a system message) and the data last; a native structured-
output request carries no schema text, so the data runs to the end of the prompt.
With `chatty=True` some replies come wrapped in prose and a ```json fence, as weak models do.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.stubs.openai_wire import StubRequest, content_text

_WORD = re.compile(r"[A-Za-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_BLOCK = re.compile(r"^\[(\d+)\]\s?", re.MULTILINE)
_NUMBERED = re.compile(r"^\d+\.\s+(.*)$", re.MULTILINE)
_STOP_WORDS = (
    "a an the of in on at to for and or but is are was were be been it its this that these those with as by from "
    "what which who whom how when where why does do did can could has have had not no than then there their they "
    "he she his her we you your our i"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in _STOP and len(w) > 2}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if len(s.strip()) > 2]


def blocks(text: str) -> list[str]:
    """The texts of `[1] ...`, `[2] ...` numbered blocks, in order."""
    parts = _BLOCK.split(text)
    return [" ".join(parts[i + 1].split()) for i in range(1, len(parts) - 1, 2)]


def between(text: str, start: str, end: str | None = None) -> str:
    """The text after the first `start` (up to `end` when given and present)."""
    _, _, rest = text.partition(start)
    if end is not None and end in rest:
        rest = rest.split(end, 1)[0]
    return rest.strip()


def overlap(claim: str, evidence: str) -> float:
    """The share of the claim's content words that the evidence also has."""
    claimed = content_words(claim)
    return len(claimed & content_words(evidence)) / len(claimed) if claimed else 0.0


class PlausibleResponder:
    """Content-based replies to the writer, reference-RAG and judge prompts; None (default reply) otherwise."""

    def __init__(self, chatty: bool = False) -> None:
        self.chatty = chatty
        self.kinds: Counter[str] = Counter()  # replies given per prompt kind
        self._routes: list[tuple[str, Callable[[str], Any]]] = [
            ("Your task is to write exactly", self.write_questions),
            ("You check question/answer pairs", self.critic_grounded),
            ("Can each question below be answered from the passages?", self.critic_answerable),
            ("Answer the question using only the numbered context passages", self.answer),
            ("break down each sentence of the answer", self.statements),
            ("Judge the faithfulness of a series of statements", self.faithfulness),
            ("different questions that the given answer answers", self.questions_for_answer),
            ("Extract the sentences of the context that are relevant", self.relevant_sentences),
            ("verify for each context whether it was useful", self.contexts_useful),
            ("as attributable to the context", self.attributions),
        ]

    def __call__(self, request: StubRequest) -> str | None:
        prompt = original_prompt(request)
        for marker, route in self._routes:
            if marker in prompt:
                self.kinds[route.__name__] += 1
                reply = route(prompt)
                return reply if isinstance(reply, str) else self._json(reply, prompt)
        return None

    def _json(self, value: Any, prompt: str) -> str:
        text = json.dumps(value, ensure_ascii=False)
        if self.chatty and hashlib.sha256(prompt.encode()).digest()[0] % 3 == 0:
            return f"Sure! Here is the JSON you asked for:\n```json\n{text}\n```\nLet me know if you need more."
        return text

    # -- the question writer (testgen) ------------------------------------------------------------------------
    def write_questions(self, prompt: str) -> dict[str, Any]:
        wanted = int(re.search(r"write exactly (\d+)", prompt).group(1))  # type: ignore[union-attr]
        found = blocks(between(prompt, "context:\n"))
        root = found[0] if found else between(prompt, "context:\n")
        multi = "from block [1] AND from at least one other block" in prompt and len(found) > 1
        pairs = []
        for sentence in (sentences(root) or [root])[:wanted]:
            topic = [w for w in _WORD.findall(sentence) if w.lower() not in _STOP]
            question = f"What is said about {' '.join(topic[:2])} with {' '.join(topic[3:5])}?"
            if multi:
                pairs.append({"question": question, "answer": f"{sentence} {sentences(found[1])[0]}", "blocks": [1, 2]})
            else:
                pairs.append({"question": question, "answer": sentence, "blocks": [1]})
        return {"pairs": pairs}

    def critic_grounded(self, prompt: str) -> dict[str, Any]:
        evidence = between(prompt, "\n\nblocks:\n", "\n\npairs:")
        answers = re.findall(r"^\s+answer: (.*)$", between(prompt, "\n\npairs:\n"), re.MULTILINE)
        verdicts = []
        for number, answer in enumerate(answers, start=1):
            supported = overlap(answer, evidence) >= 0.6
            reason = "stated in the blocks" if supported else ""
            verdicts.append({"pair": number, "supported": supported, "standalone": True, "reason": reason})
        return {"verdicts": verdicts}

    def critic_answerable(self, prompt: str) -> dict[str, Any]:
        questions = _NUMBERED.findall(between(prompt, "questions:\n", "\n\npassages:"))
        passages = between(prompt, "\n\npassages:\n")
        verdicts = []
        for number, question in enumerate(questions, start=1):
            answerable = overlap(question, passages) >= 0.8
            reason = "the passages cover it" if answerable else "not covered"
            verdicts.append({"question": number, "answerable": answerable, "reason": reason})
        return {"verdicts": verdicts}

    # -- the reference RAG (rag_under_test) -------------------------------------------------------------------
    def answer(self, prompt: str) -> str:
        question = between(prompt, "\nQuestion:", "\nAnswer:")
        passages = blocks(between(prompt, "reply exactly", "\nQuestion:"))
        candidates = [s for p in passages for s in sentences(p)]
        if not candidates:
            return "I don't know."
        best = max(candidates, key=lambda s: overlap(question, s))
        if overlap(question, best) == 0:
            return "I don't know."
        following = candidates[candidates.index(best) + 1 : candidates.index(best) + 2]
        return " ".join([best, *following])

    # -- the LLM judge (evaluation) ---------------------------------------------------------------------------
    def statements(self, prompt: str) -> dict[str, Any]:
        answer = data_of(prompt, "\nanswer: ")
        return {"statements": [s for s in sentences(answer) if "don't know" not in s.lower()]}

    def faithfulness(self, prompt: str) -> dict[str, Any]:
        context = between(prompt, "context:\n", "\n\nstatements:")
        items = _NUMBERED.findall(data_of(prompt, "\nstatements:\n"))
        return {
            "verdicts": [
                {"statement": s, "reason": "stated in the context", "verdict": int(overlap(s, context) >= 0.6)}
                for s in items
            ]
        }

    def questions_for_answer(self, prompt: str) -> dict[str, Any]:
        answer = data_of(prompt, "\nanswer: ")
        topic = [w for w in _WORD.findall(answer) if w.lower() not in _STOP]
        questions = [
            f"What is said about {' '.join(topic[:4])}?",
            f"What do we know about {' '.join(topic[1:5])}?",
            f"Which facts concern {' '.join(topic[:3])}?",
        ]
        return {"questions": questions, "noncommittal": int("don't know" in answer.lower())}

    def relevant_sentences(self, prompt: str) -> dict[str, Any]:
        question = between(prompt, "question: ", "\n\ncontext:")
        context = data_of(prompt, "\ncontext:\n")
        found = [s for b in blocks(context) for s in sentences(b) if overlap(question, s) >= 0.5]
        return {"sentences": found}

    def contexts_useful(self, prompt: str) -> dict[str, Any]:
        reference = re.search(r"\n\n(?:reference answer|answer): (.*?)\n\ncontexts:\n", prompt, re.DOTALL)
        claimed = reference.group(1) if reference else ""
        verdicts = []
        for context in blocks(data_of(prompt, "\ncontexts:\n")):
            useful = overlap(claimed, context) >= 0.5
            verdicts.append(
                {"reason": "shares the key facts" if useful else "about something else", "verdict": int(useful)}
            )
        return {"verdicts": verdicts}

    def attributions(self, prompt: str) -> dict[str, Any]:
        context = between(prompt, "context:\n", "\n\nreference sentences:")
        items = _NUMBERED.findall(data_of(prompt, "reference sentences:\n"))
        return {
            "classifications": [
                {"sentence": s, "reason": "in the context", "attributed": int(overlap(s, context) >= 0.6)}
                for s in items
            ]
        }


def original_prompt(request: StubRequest) -> str:
    """The system messages and the first user message: the prompt as the stage wrote it (a repair round appends
    more messages)."""
    parts = []
    for message in request.messages:
        parts.append(content_text(message.get("content")))
        if message.get("role") == "user":
            return "\n".join(parts)
    return request.prompt


def data_of(prompt: str, start: str) -> str:
    """The prompt after the first `start` up to a schema text, if the stage put one after its data."""
    _, _, rest = prompt.partition(start)
    return rest.split("\n\nRespond with one JSON object", 1)[0].strip()
