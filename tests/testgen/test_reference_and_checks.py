"""The offline writer's own checks on real sentences of ../shared/data/wikipedia: reference sentences, the grammar
check against the source sentence, the definition check, topic pronouns, and the question-answer relevance check."""

from __future__ import annotations

import pytest

from ragtest_core.embeddings import Embedder
from testgen.relevance import answer_relevance, is_relevant
from testgen.writers.grammar import definition_problem, grammar_problem, vague_answer
from testgen.writers.reference import reference_sentence
from testgen.writers.topic import resolve, topic_of


@pytest.mark.parametrize(
    ("sentence", "span", "reference"),
    [
        (
            "MNIST is composed of handwritten digits and includes 60,000 training examples and 10,000 test examples.",
            "handwritten digits",
            "MNIST is composed of handwritten digits.",
        ),
        (
            "Python 3.0 was released on 3 December 2008, and was a major revision of the language.",
            "3 December 2008",
            "Python 3.0 was released on 3 December 2008.",
        ),
        (
            "Polar bears experience delayed implantation and the fertilized embryo does not start development.",
            "delayed implantation",
            "Polar bears experience delayed implantation.",
        ),
        (  # a list is the answer: never cut at its commas
            "Brown bears live in Alaska, east through the Yukon and Northwest Territories, and south.",
            "Alaska",
            "Brown bears live in Alaska, east through the Yukon and Northwest Territories, and south.",
        ),
        (
            "However, CPython (the reference implementation) is available for many platforms, which helps.",
            "many platforms",
            "CPython is available for many platforms.",
        ),
    ],
)
def test_reference_answers_are_sentences(sentence: str, span: str, reference: str) -> None:
    assert reference_sentence(sentence, span) == reference


@pytest.mark.parametrize(
    ("question", "sentence", "subject", "problem"),
    [
        (
            "What were in 2017 graph neural networks used for?",
            "In 2017 graph neural networks were used for the first time to predict properties of molecules.",
            "in 2017 graph neural networks",
            "subject_start",
        ),
        ("What does brown bears eat?", "Brown bears eat fish.", "brown bears", "agreement"),
        ("What does Python uses for indentation?", "Python uses whitespace.", "Python", "verb_form"),
        ("What is CPython available for?", "CPython is available for many platforms.", "CPython", None),
        ("Where do polar bears live?", "Polar bears live on sea ice.", "polar bears", None),
        ("What do polar bears hunt in winter?", "Polar bears hunt seals.", "polar bears", "word_not_in_source:winter"),
    ],
)
def test_grammar_check_against_the_source_sentence(
    question: str, sentence: str, subject: str, problem: str | None
) -> None:
    assert grammar_problem(question, sentence, subject) == problem


@pytest.mark.parametrize(
    ("description", "problem"),
    [
        ("a large bear native to Eurasia and North America", None),
        ("the reference implementation of Python", None),
        ("a way of coping with stress", None),
        ("the most variable in size of modern bears", "ranking"),
        ("the only extant bears with a hump at the top of their shoulder", "ranking"),
        ("an alternative software platform", "needs_context"),
        ("a related field of study", "needs_context"),
        ("the result of more copies of genes involved in keratin-creating proteins", "relation"),
        ("a key pillar in Android, an open source mobile operating system", "evaluation"),
        ("a beta feature introduced in Gunicorn 25.0.0", "vague_head"),  # when it came, not what it is
        ("a WSGI server integrated with the Apache httpd server", None),
        ("a library available on PyPI", None),
    ],
)
def test_what_is_x_answers_define_x(description: str, problem: str | None) -> None:
    assert definition_problem(description) == problem


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
