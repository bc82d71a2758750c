"""`ragtest refresh` with an LLM writer (a scripted chat model): a row whose figure changed is answered again by
the model from the new text and checked by the LLM critic; the set is filled back with the LLM writer's questions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ragtest.run_state
from ragtest.api import make_config
from ragtest.refresh import UPDATED, plan, refresh
from ragtest.refresh.rewrite import REWRITE_PROMPT
from ragtest_core.llm.client import LLMClient, LLMConfig
from ragtest_core.text import split_sentences, tokenize
from tests.app.refresh_helpers import changelog, copy_pages, edit_sentence, evidence, generate, read
from tests.stubs.scripted import ScriptedChatModel
from tests.testgen.scripted_llm import respond

REWRITE_MARK = REWRITE_PROMPT.split(".")[0]


def answer_again(prompt: str) -> str:
    """The model's new reference: the sentence of the blocks that shares most words with the question."""
    question = prompt.split("question: ", 1)[1].split("\n", 1)[0]
    blocks = prompt.split("blocks:\n", 1)[1]
    sentences = [s for s in split_sentences(blocks) if not s.startswith("§")]
    best = max(sentences, key=lambda s: len(set(tokenize(s)) & set(tokenize(question))))
    return json.dumps({"answerable": True, "answer": re.sub(r"^\[\d+\] ", "", best), "answer_span": "", "blocks": [1]})


@pytest.mark.slow
def test_an_llm_refresh_answers_a_changed_row_again(
    wiki_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = copy_pages(wiki_dir, tmp_path / "old", ["Brown_bear.txt"])
    rows = generate(old, tmp_path / "out" / "old.jsonl", 6)
    row = next(r for r in rows if re.search(r"\d", r["answer_span"] or ""))
    sentence = evidence(row)[0]
    changed = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 2), sentence)
    new = tmp_path / "new"
    new.mkdir()
    text = (old / "Brown_bear.txt").read_text(encoding="utf-8")
    (new / "Brown_bear.txt").write_text(edit_sentence(text, sentence, changed), encoding="utf-8")

    model = ScriptedChatModel(responder=lambda p: answer_again(p) if REWRITE_MARK in p else respond(p))
    client = LLMClient(model, "scripted", config=LLMConfig(retries=0, concurrency=4))
    monkeypatch.setattr(ragtest.run_state, "make_llm", lambda config, run_dir: client)
    output = tmp_path / "out" / "new.jsonl"
    refresh(plan(make_config(source=str(new)), tmp_path / "out" / "old.jsonl"), output, tmp_path / "store", False)

    refreshed = {r["sample_id"]: r for r in read(output)}[row["sample_id"]]
    assert refreshed["refresh_status"] == UPDATED
    assert refreshed["question"] == row["question"]
    assert refreshed["ground_truth"] == changed
    assert sum(REWRITE_MARK in p for p in model.prompts) == 1
    assert any("You check question/answer pairs" in p and changed in p for p in model.prompts)  # the LLM critic
    assert changelog(output)["updated"][0]["new_reference"] == changed
