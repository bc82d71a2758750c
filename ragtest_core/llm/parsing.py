"""Structured output that works with weak models: find JSON in fenced or chatty replies and repair common faults.

A reasoning model's `<think>...</think>` preamble is dropped first (the JSON drafts it thinks through are not its
answer); `//` and `/* */` comments outside strings are removed before parsing.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragtest_core.errors import LLMOutputError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:)")
_THINK_END = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"^\s*<(think|thinking|reasoning)>", re.IGNORECASE)
#: A double-quoted string (to its end, or the text's) or a bracket; a string (kept) or a comment (dropped).
_STRING_OR_BRACKET = re.compile(r'"(?:\\.?|[^"\\])*(?:"|\Z)|[{}\[\]]', re.DOTALL)
_STRING_OR_COMMENT = re.compile(
    r'("(?:\\.?|[^"\\])*(?:"|\Z)|\'(?:\\.?|[^\'\\])*(?:\'|\Z))|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL
)


def json_schema(schema: type[BaseModel], strict: bool = False) -> dict[str, Any]:
    """`schema` as a compact JSON schema: references inlined, titles and defaults dropped. `strict`: every property
    required and no others allowed, as OpenAI's strict structured output requires. (A fresh copy of a cached one.)"""
    return copy.deepcopy(_json_schema(schema, strict))


@lru_cache(maxsize=256)
def _json_schema(schema: type[BaseModel], strict: bool) -> dict[str, Any]:
    from langchain_core.utils.function_calling import convert_to_openai_function

    return _without_defaults(convert_to_openai_function(schema, strict=strict)["parameters"])


def _without_defaults(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _without_defaults(value) for key, value in node.items() if key != "default"}
    if isinstance(node, list):
        return [_without_defaults(value) for value in node]
    return node


@lru_cache(maxsize=256)
def schema_instructions(schema: type[BaseModel]) -> str:
    """Text asking for one JSON object that matches `schema` (when the provider takes no schema natively)."""
    return (
        "Respond with one JSON object only, no prose, that conforms to this JSON schema:\n"
        f"{json.dumps(json_schema(schema), ensure_ascii=False)}"
    )


def strip_reasoning(text: str) -> str:
    """The reply after a reasoning model's `<think>...</think>` block (the closing tag alone counts too: some
    chat templates open the block in the prompt). An unclosed block holds no answer."""
    ends = list(_THINK_END.finditer(text))
    return text[ends[-1].end() :] if ends else "" if _THINK_OPEN.match(text) else text


def extract_json(text: str) -> Any:
    """The first JSON value found in `text`, after trying fences, the outermost braces and repairs."""
    if not text or not text.strip():
        raise LLMOutputError("the model returned an empty reply")
    raw, text = text, strip_reasoning(text)
    if not text.strip():
        raise LLMOutputError(f"the reply holds only reasoning, no answer: {raw[:200]!r}")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    errors: list[str] = []
    for candidate in candidates:
        for snippet in _json_snippets(candidate):
            for variant in _repairs(snippet):  # the snippet as it is first; repairs only when it fails
                try:
                    return json.loads(variant)
                except json.JSONDecodeError as exc:
                    errors.append(exc.msg)
    raise LLMOutputError(f"no JSON found in the reply ({errors[-1] if errors else 'no braces'}): {text[:200]!r}")


def _json_snippets(text: str) -> Iterator[str]:
    """The text itself, then each balanced {...} or [...] block in it, outermost first (found only as needed)."""
    yield text.strip()
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        while start != -1:
            end = _matching_close(text, start, opener, closer)
            if end is None:
                yield text[start:]  # unbalanced: maybe truncated, let the repairs try
                break
            yield text[start : end + 1]
            start = text.find(opener, end + 1)


def _matching_close(text: str, start: int, opener: str, closer: str) -> int | None:
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text, start):
        depth += {opener: 1, closer: -1}.get(match.group(), 0)
        if depth == 0:
            return match.start()
    return None


def _repairs(snippet: str) -> Iterator[str]:
    """The snippet, then versions with common faults fixed: smart quotes, trailing commas, comments,
    single quotes, bare keys, Python literals."""
    yield snippet
    uncommented = _STRING_OR_COMMENT.sub(lambda match: match.group(1) or "", snippet.translate(_SMART_QUOTES))
    fixed = _TRAILING_COMMA.sub(r"\1", uncommented)
    yield fixed
    pythonish = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", fixed)))
    yield pythonish
    if "'" in pythonish and '"' not in pythonish:
        yield pythonish.replace("'", '"')
    yield _BARE_KEY.sub(r'\1"\2"\3', pythonish)


def parse_structured(text: str, schema: type[T]) -> T:
    """Parse and validate a reply against `schema`; a bare list is accepted for a one-list-field schema."""
    value = extract_json(text)
    if isinstance(value, list):
        list_fields = [name for name, field in schema.model_fields.items() if _is_list_field(field.annotation)]
        if len(list_fields) == 1:
            value = {list_fields[0]: value}
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise LLMOutputError(f"reply does not match {schema.__name__}: {where}: {first.get('msg')}") from exc


def _is_list_field(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list or str(annotation).startswith("list[")
