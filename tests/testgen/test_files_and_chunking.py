from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ragtest_core.errors import SourceUnavailableError
from testgen import ChunkingConfig, chunk_documents, load_files
from testgen.files import read_files
from testgen.sources import make_document

PYTHON_FILE = "Python_(programming_language).txt"


def make_pdf(text: str) -> bytes:
    """A one-page PDF showing `text` in Helvetica, with a correct cross-reference table."""
    stream = f"BT /F1 18 Tf 20 60 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_load_files_reads_supported_types_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# Bears\nBrown bears are large.", encoding="utf-8")
    (tmp_path / "a.txt").write_text("Polar bears live in the Arctic.", encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "c.html").write_text(
        "<html><head><style>p{}</style><script>x()</script></head><body><p>Pandas eat bamboo.</p></body></html>",
        encoding="utf-8",
    )
    (sub / "d.pdf").write_bytes(make_pdf("Bears eat salmon."))
    (tmp_path / "skip.csv").write_text("a,b", encoding="utf-8")
    docs = load_files(tmp_path)
    assert [Path(d.metadata["source"]).name for d in docs] == ["a.txt", "b.md", "c.html", "d.pdf"]
    assert docs[2].page_content == "Pandas eat bamboo."
    assert "Bears eat salmon." in docs[3].page_content
    for doc in docs:
        assert set(doc.metadata) >= {"source", "url", "revision_id", "doc_id", "language"}
        assert doc.metadata["revision_id"] is None and doc.metadata["language"] == "en"


def test_load_files_missing_path_raises(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailableError, match="no such file"):
        load_files(tmp_path / "nope")


def test_chunks_hold_size_on_separator_free_text() -> None:
    doc = make_document("x" * 3000 + " " + "y" * 700, source="blob")
    chunks = chunk_documents([doc], ChunkingConfig(chunk_size=512, chunk_overlap=128))
    assert len(chunks) >= 8
    assert all(len(c.text) <= 512 for c in chunks)
    assert [c.position for c in chunks] == list(range(len(chunks)))


def test_chunk_ids_are_stable_and_metadata_is_carried(wiki_dir: Path) -> None:
    docs = load_files(wiki_dir / PYTHON_FILE)
    first = chunk_documents(docs)
    second = chunk_documents(load_files(wiki_dir / PYTHON_FILE))
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert len({c.chunk_id for c in first}) == len(first)
    assert all(len(c.text) <= 512 for c in first)
    assert first[0].text.startswith("Python is a high-level") and first[0].text.endswith(".")
    assert {c.doc_id for c in first} == {docs[0].metadata["doc_id"]}
    assert any(c.section == "History" for c in first)
    assert first[0].section is None


def test_overlap_repeats_the_end_of_the_previous_chunk() -> None:
    sentences = " ".join(f"Sentence number {i} is short." for i in range(60))
    chunks = chunk_documents([make_document(sentences, source="s")], ChunkingConfig(chunk_size=200, chunk_overlap=60))
    assert len(chunks) > 5
    for left, right in itertools.pairwise(chunks):
        head = right.text.split(".")[0] + "."
        assert head in left.text  # the next chunk starts with a sentence the previous one ended with


def test_binary_files_are_skipped_and_named(tmp_path: Path, wiki_dir: Path) -> None:
    import zipfile

    (tmp_path / "bear.txt").write_text((wiki_dir / "Brown_bear.txt").read_text(encoding="utf-8")[:3000])
    with zipfile.ZipFile(tmp_path / "archive.txt", "w") as archive:  # a binary file with a text name
        archive.writestr("inner.bin", bytes(range(256)) * 40)
    loaded = read_files(tmp_path)
    assert [d.metadata["source"] for d in loaded.documents] == [str(tmp_path / "bear.txt")]
    assert (
        list(loaded.skipped) == [str(tmp_path / "archive.txt")]
        and "binary" in loaded.skipped[str(tmp_path / "archive.txt")]
    )
    assert loaded.warnings() == [f"skipped {tmp_path / 'archive.txt'}: {loaded.skipped[str(tmp_path / 'archive.txt')]}"]
    with pytest.raises(SourceUnavailableError, match="no usable text"):
        read_files(tmp_path / "archive.txt")


def test_text_in_other_encodings_is_decoded(tmp_path: Path, test_data: Path) -> None:
    japanese = (test_data / "multilingual" / "ja_wikipedia_artificial_intelligence.txt").read_text(encoding="utf-8")[
        :4000
    ]
    (tmp_path / "ja.txt").write_bytes(japanese.encode("shift_jis", errors="ignore"))
    bear = (test_data / "wikipedia" / "Brown_bear.txt").read_text(encoding="utf-8")[:4000]
    accented = bear.replace("brown bear", "brown bear (Bär, ours brun, oso pardo)")
    accented = accented.encode("cp1252", errors="ignore").decode("cp1252")
    (tmp_path / "latin.md").write_bytes(accented.encode("cp1252"))
    documents = {Path(d.metadata["source"]).name: d for d in read_files(tmp_path).documents}
    expected_ja = japanese.encode("shift_jis", errors="ignore").decode("shift_jis").strip()
    assert documents["ja.txt"].page_content == expected_ja and documents["ja.txt"].metadata["language"] == "ja"
    # Markdown joins a paragraph's lines (soft breaks): the same words, decoded
    assert (
        documents["latin.md"].page_content.split() == accented.split() and "Bär" in documents["latin.md"].page_content
    )
    assert documents["ja.txt"].metadata["encoding"] != "utf-8"
