"""Matching an old row's evidence in a new corpus by content (`ragtest.refresh.matching`), on a real page (Flask's
signals.rst) edited in the ways docs change: nothing, a paragraph moved to another page, a sentence edited, a
sentence deleted, markup restyled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import testgen
from ragtest.refresh.matching import KEPT, MOVED, RETIRED, UPDATED, NewCorpus, OldRow, classify, norm
from testgen.chunking import Chunk
from testgen.files import read_files
from tests.app.refresh_helpers import edit_sentence


def chunks_of(folder: Path) -> list[Chunk]:
    return testgen.chunk_documents(read_files(folder).documents)


def corpus(folder: Path) -> NewCorpus:
    docs = read_files(folder).documents
    hashes = {Path(str(d.metadata["source"])).name: str(hash(d.page_content)) for d in docs}
    return NewCorpus(testgen.chunk_documents(docs), str(folder), hashes)


def row_on(chunk: Chunk, sentence: str) -> dict[str, Any]:
    return {"sample_id": "s", "source": chunk.source, "reference_contexts": [chunk.text],
            "reference_context_ids": [chunk.chunk_id], "root_id": chunk.chunk_id, "ground_truth": sentence}  # fmt: skip


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_each_kind_of_change(test_data: Path, tmp_path: Path) -> None:
    text = (test_data / "docs" / "flask" / "signals.rst").read_text(encoding="utf-8")
    old = write(tmp_path / "old", "signals.rst", text)
    chunk = next(c for c in chunks_of(old) if "Blinker library" in c.text)
    sentence = "Signals are implemented by the Blinker library."
    row = row_on(chunk, sentence)
    old_hash = {"signals.rst": str(hash(read_files(old).documents[0].page_content))}

    def status(new_text: str, other: str = "") -> str:
        folder = tmp_path / f"v{abs(hash((new_text, other)))}"
        write(folder, "signals.rst", new_text)
        if other:
            write(folder, "other.rst", other)
        return classify(OldRow.of(row, str(old), old_hash), corpus(folder)).status

    assert status(text) == KEPT
    paragraph = chunk.text.split("\n", 1)[1]
    assert status("Signals\n=======\n\nIntro text here.\n", f"Other\n=====\n\n{paragraph}\n") == MOVED
    raw = "Signals are implemented by the `Blinker`_ library."
    edited = "Signals are implemented by the `Blinker`_ package, version 1.9."
    assert status(edit_sentence(text, raw, edited)) == UPDATED
    assert status(edit_sentence(text, raw, "Flask provides signals.")) == RETIRED
    restyled = text.replace("Signals\n=======", "*******\nSignals\n*******").replace("  ", " ")
    assert status(restyled) in (KEPT, MOVED)


def test_norm_drops_inline_markup_and_the_heading_line() -> None:
    assert norm("§ Page > Part\nUse  `flask run` to **start**\n the server.") == "Use flask run to start the server."
