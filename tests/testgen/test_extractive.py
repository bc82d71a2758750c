"""The offline writer's sentence rules on whole Wikipedia articles, and the writer's contract (deterministic, gold
blocks, declined types). What the rules make of single sentences is pinned in tests/testgen/golden/sentences.json."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragtest_core.text import split_sentences, word_count
from testgen import ChunkingConfig, ExtractiveWriter, chunk_documents, load_files
from testgen.contexts import Context
from testgen.filters import QuestionRules, is_specific
from testgen.writers.english.clause import Casing, Skip
from testgen.writers.sentences.patterns import turn_all
from tests.testgen.whole_corpus import prepare

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
    prepare(writer, chunks)
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
