"""Chinese and Japanese sources on real text: splitting, word limits, questions in the source's language."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragtest_core.llm import LLMClient
from ragtest_core.text import detect_language, split_sentences, word_count
from testgen import ExtractiveWriter, LLMWriter, chunk_documents, load_files
from testgen.contexts import Context
from testgen.filters import QuestionRules
from testgen.writers.english.clause import Skip
from testgen.writers.sentences.cjk import turn_cjk
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.whole_corpus import prepare

ZH = "zh_wikipedia_operating_system.txt"
JA_WIKI = "ja_wikipedia_artificial_intelligence.txt"
JA_BLOG = "ja_ragas_paper_summary_excerpt.txt"


@pytest.fixture(scope="module")
def multilingual(test_data: Path) -> Path:
    return test_data / "multilingual"


def test_sentences_split_on_cjk_punctuation(multilingual: Path) -> None:
    zh = split_sentences((multilingual / ZH).read_text(encoding="utf-8"), "zh")
    assert (
        "操作系统（Operating System，缩写：OS）是管理计算机硬件与软件资源的系统软件，同时也是计算机系统的核心与基石。"
        in zh
    )
    ja = split_sentences((multilingual / JA_WIKI).read_text(encoding="utf-8"), "ja")
    assert all(s.count("。") <= 1 or "「" in s for s in ja)
    assert word_count("什么是操作系统？") == 4  # two characters a word: within the 10-word limit


def test_chinese_definitions_become_chinese_questions(multilingual: Path) -> None:
    chunks = chunk_documents(load_files(multilingual / ZH))
    assert chunks[0].language == "zh"
    writer = ExtractiveWriter(seed=1)
    prepare(writer, chunks)
    drafts = asyncio.run(writer.write(Context(root=chunks[0]), 3))
    assert ("什么是操作系统？", "管理计算机硬件与软件资源的系统软件") in [(d.question, d.answer_span) for d in drafts]
    rules = QuestionRules()
    for draft in drafts:
        assert detect_language(draft.question) == "zh" and draft.answer_span in chunks[0].text
        assert draft.answer.endswith("。") and draft.answer_span in draft.answer  # the reference is the sentence
        assert rules.reason(draft.question, draft.answer, language="zh") is None


def test_chinese_questions_over_the_whole_article_are_clean(multilingual: Path) -> None:
    text = (multilingual / ZH).read_text(encoding="utf-8")
    turned = []
    for sentence in split_sentences(text, "zh"):
        try:
            turned.extend(turn_cjk(sentence, "zh"))
        except Skip:
            continue
    assert len(turned) >= 8
    rules = QuestionRules()
    for result in turned:
        assert result.question.startswith("什么是") or "由谁" in result.question
        assert rules.reason(result.question, result.answer, language="zh") is None, result.question


def test_japanese_definitions_and_honest_skips(multilingual: Path) -> None:
    sentence = "忠実性とは、生成された答えが与えられたコンテキストから導き出されるべきである、という概念です。"
    assert sentence in split_sentences((multilingual / JA_BLOG).read_text(encoding="utf-8"), "ja")
    [turned] = turn_cjk(sentence, "ja")
    assert turned.question == "忠実性とは何ですか？" and turned.answer in sentence
    assert QuestionRules().reason(turned.question, turned.answer, language="ja") is None
    with pytest.raises(Skip):  # a demonstrative subject: skipped, not guessed
        turn_cjk("これは来談者中心療法を行うおしゃべりロボットである。", "ja")
    chunks = chunk_documents(load_files(multilingual / JA_WIKI))
    writer = ExtractiveWriter()
    for chunk in chunks[:20]:
        for draft in asyncio.run(writer.write(Context(root=chunk), 2)):
            assert draft.question.endswith("？") and detect_language(draft.question) == "ja"


def test_llm_writer_asks_in_the_source_language(multilingual: Path) -> None:
    chunks = chunk_documents(load_files(multilingual / JA_WIKI))
    model = ScriptedChatModel(
        responses=['{"pairs": [{"question": "人工知能とは何ですか？", "answer": "計算機科学の一分野"}]}']
    )
    writer = LLMWriter(LLMClient(model, model_id="m"))
    asyncio.run(writer.write(Context(root=chunks[1]), 1, "conditional"))
    assert "in Japanese" in model.prompts[0] and "condition or constraint" in model.prompts[0]


def test_an_english_question_on_a_chinese_source_is_rejected() -> None:
    rules = QuestionRules()
    assert rules.reason("What is an operating system?", "系统软件", language="zh") == "wrong_language"
    assert rules.reason("什么是操作系统？", "系统软件", language="zh") is None


@pytest.mark.parametrize(
    ("name", "question"),
    [
        ("zh-tw_ragas_paper_notes_excerpt.txt", "什麼是RAGAs？"),  # Traditional text, Traditional question words
        ("zh-cn_rag_evaluation_interview_excerpt.txt", "什么是答案相关性评估？"),  # a Markdown glossary line
        ("ja_wikipedia_artificial_intelligence.txt", "ELIZAを構築したのは誰ですか？"),
    ],
)
def test_blog_posts_and_wikipedia_give_questions_in_their_language(
    multilingual: Path, name: str, question: str
) -> None:
    chunks = chunk_documents(load_files(multilingual / name))
    writer = ExtractiveWriter(seed=1)
    prepare(writer, chunks)
    facts = {fact.turned.question: fact for chunk in chunks for fact in writer.facts(chunk)}
    assert question in facts, sorted(facts)
    fact = facts[question]
    assert detect_language(question) == chunks[0].language and fact.turned.answer in fact.sentence
    assert QuestionRules().reason(question, fact.turned.answer, language=chunks[0].language) is None
