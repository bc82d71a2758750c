"""The offline writer's own checks on real sentences of tests/data/wikipedia: vague answers, topic pronouns, and the
question-answer relevance check (reference sentences and the grammar and definition checks are pinned in
tests/testgen/golden/sentences.json)."""

from __future__ import annotations

from ragtest_core.embeddings import Embedder
from testgen.relevance import answer_relevance, is_relevant
from testgen.writers.english.grammar import vague_answer
from testgen.writers.sentences.topic import resolve, topic_of


def test_vague_answers_are_refused() -> None:
    assert vague_answer("various applications") and vague_answer("many platforms")
    assert not vague_answer("an automatic garbage collector") and not vague_answer("Alaska")


def test_topic_pronouns_are_said_with_the_topic() -> None:
    bear, python = topic_of("Brown bear"), topic_of("/data/Python_(programming_language).txt")
    assert resolve("It is found in Eurasia.", bear, previous_about_topic=True) == "The brown bear is found in Eurasia."
    assert resolve("They have large paws.", bear, previous_about_topic=True) == "Brown bears have large paws."
    assert resolve("Bears have large paws.", bear, previous_about_topic=False) == "Brown bears have large paws."
    assert resolve("It is found in Eurasia.", bear, previous_about_topic=False) is None  # "It" needs a lead-in
    assert resolve("It is thought that bears sleep.", bear, previous_about_topic=True) is None
    assert resolve("They use indentation.", python, previous_about_topic=True) is None  # a name is not plural
    assert topic_of("Deep learning") is not None and topic_of("Deep learning").kind == "mass"  # type: ignore[union-attr]


def test_relevance_rejects_an_answer_about_something_else(embedder: Embedder) -> None:
    questions = ["What do polar bears eat?", "What do polar bears eat?", "When was Python 3.0 released?"]
    answers = [
        "Polar bears eat mostly ringed and bearded seals.",
        "Python uses the + operator for string concatenation.",
        "2008",
    ]
    scores = answer_relevance(embedder, questions, answers)
    kept = [is_relevant(float(score), answer) for score, answer in zip(scores, answers, strict=True)]
    assert kept == [True, False, True]  # a bare date is too short to judge, so it is kept
