"""JSON extraction and repair for replies from weak models."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from ragtest_core.errors import LLMOutputError
from ragtest_core.llm import extract_json, parse_structured


class Statements(BaseModel):
    statements: list[str]


class Nested(BaseModel):
    name: str
    scores: dict[str, float]
    tags: list[str]
    ok: bool
    note: str | None = None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('```JSON\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ("{'a': 'x', 'b': 'y'}", {"a": "x", "b": "y"}),
        ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('{a: 1, b_2: "x"}', {"a": 1, "b_2": "x"}),
        ("[1, 2, 3]", [1, 2, 3]),
        ('["x", "y",]', ["x", "y"]),
        ('Here is my answer: {"a": {"b": {"c": [1, {"d": 2}]}}} I hope it helps!', {"a": {"b": {"c": [1, {"d": 2}]}}}),
        (
            'Sure.\n```json\n{"verdict": 1, "reason": "braces } in a string"}\n```\nDone.',
            {"verdict": 1, "reason": "braces } in a string"},
        ),
        ("“smart”", "smart"),
        ("{“a”: “b”}", {"a": "b"}),
        ('{\n  // a comment\n  "a": 1\n}', {"a": 1}),
        ('The list: ["a", "b"] and more text', ["a", "b"]),
        ('<think>Maybe {"a": 0}? No: the second.</think>\n{"a": 1}', {"a": 1}),  # a reasoning model's preamble
        ('thinking opened by the chat template {"a": 0}</think>\n```json\n{"a": 2}\n```', {"a": 2}),
        (
            '{"a": 1, // why\n "url": "http://x.org/a//b", /* block */ "b": [1, 2]}',
            {"a": 1, "url": "http://x.org/a//b", "b": [1, 2]},
        ),
    ],
)
def test_extract_json(text: str, expected: Any) -> None:
    if expected is None:
        with pytest.raises(LLMOutputError):
            extract_json(text)
    else:
        assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "   \n", "no json here at all", "{not: json: at all"])
def test_extract_json_failures_are_output_errors(text: str) -> None:
    with pytest.raises(LLMOutputError):
        extract_json(text)


def test_a_reply_that_only_reasons_holds_no_answer() -> None:
    with pytest.raises(LLMOutputError, match="only reasoning"):
        extract_json('<think>I think the verdict is {"verdict": 1} but let me check')


def test_empty_reply_is_named() -> None:
    with pytest.raises(LLMOutputError, match="empty reply"):
        extract_json("")


def test_bare_list_fills_a_single_list_field() -> None:
    assert parse_structured('["one", "two"]', Statements) == Statements(statements=["one", "two"])


def test_nested_object_with_python_literals_and_prose() -> None:
    text = "Result:\n{'name': 'x', 'scores': {'a': 0.5, 'b': 1}, 'tags': ['t'], 'ok': True, 'note': None,}\nEnd."
    assert parse_structured(text, Nested) == Nested(name="x", scores={"a": 0.5, "b": 1.0}, tags=["t"], ok=True)


def test_schema_mismatch_names_the_field() -> None:
    with pytest.raises(LLMOutputError, match=r"Nested: scores"):
        parse_structured('{"name": "x", "scores": "high", "tags": [], "ok": true}', Nested)


def test_first_json_value_wins_after_prose_with_braces() -> None:
    assert parse_structured('I considered {things}. {"statements": ["s1"]}', Statements) == Statements(
        statements=["s1"]
    )
