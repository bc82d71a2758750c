from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragtest.text import split_sentences, word_count
from testgen import ChunkingConfig, ExtractiveWriter, chunk_documents, load_files
from testgen.contexts import Context
from testgen.writers.patterns import Skip, proper_nouns, turn_sentence

PYTHON_FILE = "Python_(programming_language).txt"


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
        (
            "CPython is the reference implementation",
            "What is CPython?",
            "the reference implementation of Python",
        ),
    ],
)
def test_real_sentences_become_wh_questions(python_text: str, start: str, question: str, answer: str) -> None:
    sentence = _find(python_text, start)
    turned = turn_sentence(sentence, proper_nouns(python_text))
    assert (turned.question, turned.answer) == (question, answer)
    assert turned.answer in sentence


@pytest.mark.parametrize(
    ("sentence", "question", "answer"),
    [
        ("Java was designed by James Gosling at Sun Microsystems.", "Who designed Java?", "James Gosling"),
        ("The Eiffel Tower is located in Paris, France.", "Where is the Eiffel Tower located?", "Paris"),
        ("Adult polar bears have 42 teeth.", "How many teeth do adult polar bears have?", "42"),
    ],
)
def test_other_patterns(sentence: str, question: str, answer: str) -> None:
    turned = turn_sentence(sentence, proper_nouns(sentence + " the adult bears of Paris and Sun Java"))
    assert (turned.question, turned.answer) == (question, answer)


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("It is widely taught as an introductory programming language.", "pronoun_or_vague_subject"),
        ("This was released in 2008.", "pronoun_or_vague_subject"),
        ("Python was released (see below) in 1991.", "parenthesis_or_citation"),
        ("Is Python a language?", "question"),
        ("History", "fragment"),
    ],
)
def test_unclean_sentences_are_skipped(sentence: str, reason: str) -> None:
    with pytest.raises(Skip) as info:
        turn_sentence(sentence)
    assert info.value.reason == reason


def test_whole_article_questions_are_clean_spans(python_text: str) -> None:
    names = proper_nouns(python_text)
    turned = []
    for sentence in split_sentences(python_text, "en"):
        try:
            result = turn_sentence(sentence, names)
        except Skip:
            continue
        turned.append(result)
        assert result.question.endswith("?")
        assert result.question.split()[0] in {"What", "When", "Who", "Where", "How"}
        assert result.answer in sentence
        assert word_count(result.question) <= 10
        assert "context" not in result.question.lower() and "passage" not in result.question.lower()
    assert len(turned) >= 25


def test_writer_is_deterministic_and_cites_the_sentence_block(wiki_dir: Path) -> None:
    chunks = chunk_documents(load_files(wiki_dir / PYTHON_FILE), ChunkingConfig())
    context = Context(root=chunks[1], neighbours=(chunks[0], chunks[40]))
    first = asyncio.run(ExtractiveWriter(seed=3).write(context, 3))
    again = asyncio.run(ExtractiveWriter(seed=3).write(context, 3))
    assert first == again and first
    assert (
        first[0].question == "When was Python 3.0 released?"
    )  # the root's only turnable sentence comes first
    for draft in first:
        block = context.block(draft.blocks[0])
        assert block is not None and draft.answer in block.text


def test_writer_skips_non_english(shared_data: Path) -> None:
    text = (shared_data / "multilingual" / "zh_wikipedia_operating_system.txt").read_text(encoding="utf-8")
    chunks = chunk_documents(load_files(shared_data / "multilingual" / "zh_wikipedia_operating_system.txt"))
    assert chunks and chunks[0].language == "zh" and text
    writer = ExtractiveWriter()
    assert asyncio.run(writer.write(Context(root=chunks[0]), 2)) == []
    assert writer.stats["non_english"] == 1
