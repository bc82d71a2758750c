from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from ragtest_core.llm import LLMClient, LLMConfig
from testgen import LLMWriter
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.writers.llm import parse_text_pairs
from tests.stubs.scripted import ScriptedChatModel


def _chunk(n: int, text: str) -> Chunk:
    return Chunk(chunk_id=f"c{n}", text=text, doc_id="d", source="Python", position=n * 5)


CONTEXT = Context(
    root=_chunk(0, "Python 3.0, released in 2008, was a major revision of the language."),
    neighbours=(
        _chunk(1, "Guido van Rossum created Python in the late 1980s."),
        _chunk(2, "Python uses dynamic typing and garbage collection."),
    ),
)


def _writer(responder: Callable[[str], str]) -> tuple[LLMWriter, ScriptedChatModel]:
    model = ScriptedChatModel(responder=responder)
    return LLMWriter(LLMClient(model, model_id="scripted-1", config=LLMConfig(retries=0))), model


def test_json_reply_maps_cited_blocks() -> None:
    reply = json.dumps(
        {
            "pairs": [
                {"question": "When was Python 3.0 released?", "answer": "2008", "blocks": [1]},
                {"question": "Who created Python?", "answer": "Guido van Rossum", "blocks": [2, 1, 9]},
            ]
        }
    )
    writer, model = _writer(lambda prompt: reply)
    drafts = asyncio.run(writer.write(CONTEXT, 2))
    assert [(d.question, d.answer, d.blocks) for d in drafts] == [
        ("When was Python 3.0 released?", "2008", (1,)),
        ("Who created Python?", "Guido van Rossum", (2, 1)),
    ]
    assert writer.name == "llm:scripted-1"
    prompt = model.prompts[0]
    assert "exactly 2 question/answer pair(s)" in prompt and "[3] Python uses dynamic typing" in prompt
    assert "not contain more than 10 words" in prompt and "provided context" in prompt
    assert "in English" in prompt
    assert writer.stats["parsed_json"] == 1


def test_text_format_reply_is_accepted() -> None:
    reply = (
        "question: When was Python 3.0 released?\nanswer: In 2008.\nblocks: 1\nXXX\n"
        "question: Who created Python?\nanswer: Guido van Rossum\nXXX\n"
    )
    writer, model = _writer(lambda prompt: reply)
    drafts = asyncio.run(writer.write(CONTEXT, 2))
    assert [(d.question, d.answer, d.blocks) for d in drafts] == [
        ("When was Python 3.0 released?", "In 2008.", (1,)),
        ("Who created Python?", "Guido van Rossum", (1,)),  # none cited: the root
    ]
    assert writer.stats["parsed_text"] == 1
    assert len(model.prompts) == 2  # the structured call and its repair round; then the first reply read as text


def test_chatty_fenced_reply() -> None:
    reply = (
        "Sure! Here are the questions you asked for:\n```json\n"
        '{"pairs": [{"question": "What typing does Python use?", "answer": "dynamic typing", '
        '"blocks": [3]}]}\n'
        "```\nLet me know if you need more."
    )
    writer, _ = _writer(lambda prompt: reply)
    [draft] = asyncio.run(writer.write(CONTEXT, 1))
    assert (draft.question, draft.answer, draft.blocks) == (
        "What typing does Python use?",
        "dynamic typing",
        (3,),
    )


def test_garbage_reply_gives_no_drafts() -> None:
    writer, _ = _writer(lambda prompt: "I cannot help with that.")
    assert asyncio.run(writer.write(CONTEXT, 2)) == []
    assert writer.stats["unparseable"] == 1


def test_parse_text_pairs_without_separators() -> None:
    pairs = parse_text_pairs(
        "1. Question: What is PyPy?\nAnswer: a fast interpreter\n2. Question: What is CPython?\n"
        "Answer: the reference\nimplementation\nSources: [2], [3]"
    )
    assert [(p.question, p.answer, p.blocks) for p in pairs] == [
        ("What is PyPy?", "a fast interpreter", []),
        ("What is CPython?", "the reference implementation", [2, 3]),
    ]
