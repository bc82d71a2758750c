"""Replies for the OpenAI stub to ragas 0.4.3's prompts: valid JSON built from the schema in the prompt.

ragas' PydanticPrompts put the output's JSON schema in the prompt ("...complies with the following schema as
specified in JSON Schema:\n{schema}") and end with the input as JSON ("input: {...}\nOutput: "). The reply is a
minimal valid instance of that schema: one list item per statement of the input (NLI), else per sentence of the
answer; integer verdicts by word overlap with the context (so scores are not constant); "noncommittal" 0.
"""

from __future__ import annotations

import json
import re
from typing import Any

SCHEMA_MARKER = "complies with the following schema as specified in JSON Schema:\n"
INPUT_MARKER = "Now perform the same with the following input\ninput: "
_WORD = re.compile(r"[A-Za-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "with",
        "as",
        "by",
        "from",
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "why",
        "does",
        "do",
        "did",
        "can",
        "could",
        "has",
        "have",
        "had",
        "not",
        "no",
        "than",
        "then",
        "there",
        "their",
        "they",
    ]
)


def is_ragas_prompt(prompt: str) -> bool:
    return SCHEMA_MARKER in prompt


def ragas_reply(prompt: str) -> str | None:
    """The JSON reply to one ragas prompt, or None when the prompt carries no schema."""
    schema = _decode_after(prompt, SCHEMA_MARKER)
    if not isinstance(schema, dict):
        return None
    data = _decode_after(prompt, INPUT_MARKER, last=True)
    return json.dumps(_Synth(schema, data if isinstance(data, dict) else {}).instance(schema))


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP and len(w) > 2}


def _overlap(claim: str, evidence: str) -> float:
    words = _content(claim)
    return len(words & _content(evidence)) / len(words) if words else 0.0


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if len(s.strip()) > 2]


def _decode_after(text: str, marker: str, last: bool = False) -> Any:
    position = text.rfind(marker) if last else text.find(marker)
    if position < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[position + len(marker) :].lstrip())
    except json.JSONDecodeError:
        return None
    return value


class _Synth:
    def __init__(self, root: dict[str, Any], data: dict[str, Any]) -> None:
        self.defs = root.get("$defs", {})
        self.data = data
        self.evidence = str(data.get("context", ""))

    def items(self) -> list[str]:
        lists = [v for v in self.data.values() if isinstance(v, list) and all(isinstance(x, str) for x in v)]
        if lists:  # NLI: one verdict per input statement
            return [str(x) for x in lists[0]]
        return _sentences(str(self.data.get("answer") or self.data.get("text") or "")) or ["statement"]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.defs[schema["$ref"].rsplit("/", 1)[-1]]
        if "anyOf" in schema:
            schema = next((x for x in schema["anyOf"] if x.get("type") != "null"), schema["anyOf"][0])
        if "allOf" in schema and len(schema["allOf"]) == 1:
            schema = self.resolve(schema["allOf"][0])
        return schema

    def instance(self, schema: dict[str, Any], name: str = "", item: str | None = None) -> Any:
        schema = self.resolve(schema)
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            return {key: self.instance(value, key, item) for key, value in schema.get("properties", {}).items()}
        if kind == "array":
            sub = schema.get("items", {"type": "string"})
            return [self.instance(sub, name, text) for text in self.items()]
        if kind in ("integer", "number"):
            low, high = schema.get("minimum", 0), schema.get("maximum", 1)
            if name == "noncommittal":
                return 0
            if item is not None and self.evidence:
                return int(_overlap(item, self.evidence) >= 0.5) if high >= 1 else low
            return min(max(1, low), high)
        if kind == "boolean":
            return True
        if kind == "string":
            return self._string(name, item)
        return None

    def _string(self, name: str, item: str | None) -> str:
        if item is not None and name in ("statement", "sentence", "statements", "sentences", "questions", ""):
            return item
        if name == "question":
            return f"What is said about {' '.join(_WORD.findall(str(self.data.get('response', '')))[:4])}?"
        return "judged by word overlap" if name == "reason" else (item or "text")
