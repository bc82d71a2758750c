"""Query styles and lengths offline: deterministic seeded transforms that change the question as users would type
it, keeping its key terms (`testgen.styles`)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from ragtest_core.llm import LLMClient
from ragtest_core.schema import TestSample
from testgen import GenerationSettings
from testgen.styles import LENGTHS, STYLES, Restyler, parse_choices, planned_rewrites, restyle, turn_of
from tests.stubs.scripted import ScriptedChatModel

QUESTIONS = [
    "How do you install Flask?",
    "What does the `NO_PROXY` environment variable control?",
    "Does HTTPX follow redirects by default?",
    "What is the default timeout of httpx.Client in version 0.28?",
    "How do you configure connection pool resource limits?",
    "Which is a discontinued just-in-time specializing compiler, Psyco or PyPy?",
]


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("style", [s for s in STYLES if s != "perfect"])
def test_every_style_changes_the_question_the_same_way_each_time(question: str, style: str) -> None:
    styled = restyle(question, style, None, seed=7)
    assert styled != question and styled == restyle(question, style, None, seed=7)
    assert restyle(question, "perfect", None, seed=7) == question


def test_web_keeps_key_terms_and_drops_function_words() -> None:
    assert restyle("How do you install Flask?", "web", None) == "install flask"
    assert restyle("What does the `NO_PROXY` environment variable control?", "web", None) == (
        "NO_PROXY environment variable control"
    )
    assert "httpx.Client" in restyle(QUESTIONS[3], "web", None) and "0.28" in restyle(QUESTIONS[3], "web", None)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("question", QUESTIONS)
def test_typos_are_controlled(question: str, seed: int) -> None:
    """At most one typo a word, only in lower-case words of five letters or more, first and last letters kept;
    code identifiers, numbers and names are never touched."""
    styled = restyle(question, "misspelled", None, seed=seed).split(" ")
    words = question.split(" ")
    assert len(styled) == len(words)
    changed = [(a, b) for a, b in zip(words, styled, strict=True) if a != b]
    assert changed
    for before, after in changed:
        core = before.strip("?,.")
        assert core.isalpha() and core.islower() and len(core) >= 5
        typo = after.strip("?,.")
        assert typo[0] == core[0] and typo[-1] == core[-1] and abs(len(typo) - len(core)) <= 1
    for word in words:
        if re.search(r"[`_.\d]|^[A-Z]", word):
            assert word in styled


def test_poor_grammar_and_lengths() -> None:
    assert restyle("How do you install Flask?", "poor_grammar", None, seed=1) in {"how you install Flask"}
    assert restyle("What is the default timeout?", "poor_grammar", None, seed=3).startswith(("what", "what are"))
    assert restyle("How do you install Flask?", None, "short") == "How install flask?"
    long = restyle("How do you install Flask?", None, "long")
    assert long.endswith(" How do you install Flask?") and len(long.split()) > 8
    assert restyle("How do you install Flask?", None, "medium") == "How do you install Flask?"


def test_styles_and_lengths_take_turns() -> None:
    styles, lengths = ("perfect", "web"), ("short", "long")
    turns = [turn_of(i, styles, lengths) for i in range(4)]
    assert turns == [("perfect", "short"), ("web", "short"), ("perfect", "long"), ("web", "long")]
    assert turn_of(5, ("web",), ()) == ("web", None)
    # the dry run plans one LLM rewrite per row that is not perfect and medium: 7 of 10 here
    assert len(planned_rewrites(10, styles, ("medium", "long"))) == 7 and planned_rewrites(10, (), ()) == []


def test_unknown_styles_and_lengths_are_refused() -> None:
    assert parse_choices("web, misspelled,web", STYLES, "query style") == ("web", "misspelled")
    assert parse_choices(None, LENGTHS, "query length") == ()
    with pytest.raises(ValueError, match="unknown query style typo"):
        GenerationSettings(query_styles="web,typo")
    with pytest.raises(ValueError, match="unknown query length huge"):
        GenerationSettings(query_lengths="huge")


def test_a_short_question_gets_its_typo_in_the_question_word() -> None:
    styled = restyle("What is AnyIO?", "misspelled", None, seed=1)
    assert styled != "What is AnyIO?" and styled.endswith(" is AnyIO?") and styled[0] == "W"


def test_a_rewrite_that_loses_a_code_identifier_falls_back_to_the_offline_style() -> None:
    replies = iter(["proxy env var thing", "what controls the no_proxy variable"])
    model = ScriptedChatModel(responder=lambda prompt: json.dumps({"question": next(replies)}))
    restyler = Restyler(("web",), (), seed=1, llm=LLMClient(model, model_id="scripted"))
    sample = TestSample(sample_id="s", question=QUESTIONS[1], ground_truth="It lists hosts that skip the proxy.")
    lost = asyncio.run(restyler.apply(sample, 0))
    assert lost.question == restyle(QUESTIONS[1], "web", None, seed=1)  # NO_PROXY was lost: the offline keywords
    kept = asyncio.run(restyler.apply(sample, 1))
    assert kept.question == "what controls the no_proxy variable"
    assert restyler.stats["rewrite_calls"] == 2 and restyler.stats["rewrite_fallbacks"] == 1
    assert kept.model_dump()["canonical_question"] == QUESTIONS[1]
