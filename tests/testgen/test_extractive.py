from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragtest_core.text import split_sentences, word_count
from testgen import ChunkingConfig, ExtractiveWriter, chunk_documents, load_files
from testgen.contexts import Context
from testgen.filters import QuestionRules, is_specific
from testgen.writers.patterns import Casing, Skip, turn_all, turn_sentence

PYTHON_FILE = "Python_(programming_language).txt"
ARTICLES = (
    "Artificial_intelligence.txt",
    "Brown_bear.txt",
    "Deep_learning.txt",
    "Java_(programming_language).txt",
    "Machine_learning.txt",
    "Polar_bear.txt",
    PYTHON_FILE,
)
#: questions the first writer emitted on these articles (issue 5): generic or broken.
BAD = {
    "What does Python use?",
    "What does Python allow?",
    "What does Python support?",
    "What do Releases receive two years of full support?",
    "What does Division between integers produce?",
}


@pytest.fixture(scope="module")
def python_text(wiki_dir: Path) -> str:
    return (wiki_dir / PYTHON_FILE).read_text(encoding="utf-8")


def _find(text: str, start: str) -> str:
    return next(s for s in split_sentences(text, "en") if s.startswith(start))


@pytest.mark.parametrize(
    ("start", "question", "answer"),
    [
        ("Python 3.0, released in 2008", "When was Python 3.0 released?", "2008"),
        ("Python 2.0 was released on 16 October 2000", "When was Python 2.0 released?", "16 October 2000"),
        ("Python is a high-level", "What is Python?", "a high-level, general-purpose programming language"),
        (
            "The name Python derives",
            "What does the name Python derive from?",
            "the British comedy series Monty Python's Flying Circus",
        ),
        ("Python uses the ** operator", "What does Python use for exponentiation?", "the ** operator"),
        ("CPython is the reference implementation", "What is the reference implementation of Python?", "CPython"),
        ("Division between integers", "What does division between integers produce?", "floating-point results"),
    ],
)
def test_real_sentences_become_wh_questions(python_text: str, start: str, question: str, answer: str) -> None:
    sentence = _find(python_text, start)
    turned = turn_sentence(sentence, Casing(python_text))
    assert (turned.question, turned.answer) == (question, answer)
    assert turned.answer in sentence


@pytest.mark.parametrize(
    ("sentence", "question", "answer"),
    [
        ("Java was designed by James Gosling at Sun Microsystems.", "Who designed Java?", "James Gosling"),
        ("The Eiffel Tower is located in Paris, France.", "Where is the Eiffel Tower located?", "Paris"),
        ("Adult polar bears have 42 teeth.", "How many teeth do adult polar bears have?", "42"),
        ("Polar bears can weigh up to 700 kg.", "How much can polar bears weigh?", "up to 700 kg"),
        ("In 1995, Sun Microsystems released Java 1.0.", "When did Sun Microsystems release Java 1.0?", "1995"),
        ("Guido van Rossum created Python in 1991.", "When did Guido van Rossum create Python?", "1991"),
        ("Brown bears live in the forests of Alaska.", "Where do brown bears live?", "the forests of Alaska"),
        ("Python 3.0 was released in 2008.", "When was Python 3.0 released?", "2008"),
    ],
)
def test_other_patterns(sentence: str, question: str, answer: str) -> None:
    casing = Casing(sentence + " the adult polar bears of Paris and Sun Java; brown bears")
    turned = turn_sentence(sentence, casing)
    assert (turned.question, turned.answer) == (question, answer)


def test_passive_by_and_active_creator_ask_who() -> None:
    questions = {t.question: t.answer for t in turn_all("Guido van Rossum created Python in 1991.")}
    assert questions["Who created Python?"] == "Guido van Rossum"


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("It is widely taught as an introductory programming language.", "pronoun_or_vague_subject"),
        ("This was released in 2008.", "pronoun_or_vague_subject"),
        ("Is Python a language?", "question"),
        ("History", "fragment"),
    ],
)
def test_unclean_sentences_are_skipped(sentence: str, reason: str) -> None:
    with pytest.raises(Skip) as info:
        turn_sentence(sentence)
    assert info.value.reason == reason


def test_light_verbs_need_a_complement() -> None:
    with pytest.raises(Skip):  # "What does Python support?" would be too generic to answer
        turn_all("Python supports optional type annotations.")
    [turned] = turn_all("Java uses an automatic garbage collector to manage memory.")
    assert (turned.question, turned.answer) == (
        "What does Java use to manage memory?",
        "an automatic garbage collector",
    )


@pytest.mark.parametrize("article", ARTICLES)
def test_whole_articles_give_clean_specific_questions(wiki_dir: Path, article: str) -> None:
    text = (wiki_dir / article).read_text(encoding="utf-8")
    casing = Casing(text)
    rules = QuestionRules()
    sentences = split_sentences(text, "en")
    turned_sentences = 0
    for sentence in sentences:
        try:
            turned = turn_all(sentence, casing)
        except Skip:
            continue
        turned_sentences += 1
        for result in turned:
            assert result.question not in BAD
            assert result.question.split()[0] in {"What", "When", "Who", "Where", "How", "Which"}
            assert result.answer in sentence and word_count(result.question) <= 10
            assert is_specific(result.question), result.question
            reason = rules.reason(result.question, result.answer, language="en", contexts=[sentence])
            assert reason in (None, "copies_context"), result.question  # copying is judged on the whole context
    assert turned_sentences / len(sentences) >= 0.04  # the first writer: 1.4% (Brown bear), 2.0% (Polar bear)


def test_writer_is_deterministic_and_cites_the_sentence_block(wiki_dir: Path) -> None:
    chunks = chunk_documents(load_files(wiki_dir / PYTHON_FILE), ChunkingConfig())
    context = Context(root=chunks[1], neighbours=(chunks[0], chunks[40]))
    writer = ExtractiveWriter(seed=3)
    writer.prepare(chunks)
    first = asyncio.run(writer.write(context, 3))
    again = asyncio.run(ExtractiveWriter(seed=3).write(context, 3))
    assert first == again and first
    assert first[0].question == "When was Python 3.0 released?"
    for draft in first:
        block = context.block(draft.blocks[0])
        assert block is not None and draft.answer in block.text and draft.question_type == "simple"


def test_unsupported_types_are_declined_and_counted(wiki_dir: Path) -> None:
    chunks = chunk_documents(load_files(wiki_dir / PYTHON_FILE))
    writer = ExtractiveWriter()
    assert writer.supported_types == {"simple", "multi_context"}
    assert asyncio.run(writer.write(Context(root=chunks[1]), 2, "reasoning")) == []
    assert writer.stats["unsupported_type_reasoning"] == 1
    assert "need an LLM" in writer.unsupported_reason
