"""Case 10: a broken document is skipped with a warning, like a binary one, instead of stopping the folder; an
encrypted PDF opens when it needs no password (AES included: the install brings `cryptography`), and one that
needs a password is skipped with a reason that says it is encrypted."""

from __future__ import annotations

import io
from importlib import metadata
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from testgen.files import read_files
from tests.testgen.test_files_and_chunking import make_pdf


def encrypted(text: str, user_password: str, algorithm: str = "AES-256") -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(text))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm=algorithm)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.fixture
def folder(tmp_path: Path, wiki_dir: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bears.txt").write_text((wiki_dir / "Polar_bear.txt").read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\nthis is not a pdf\n")
    (docs / "aes.pdf").write_bytes(encrypted("Polar bears hunt seals on the sea ice", ""))
    (docs / "rc4.pdf").write_bytes(encrypted("Polar bears swim well", "", algorithm="RC4-128"))
    (docs / "locked.pdf").write_bytes(encrypted("Secret bears", "open-sesame"))
    return docs


def test_the_folder_loads_around_broken_and_locked_files(folder: Path) -> None:
    loaded = read_files(folder)
    names = sorted(Path(doc.metadata["source"]).name for doc in loaded.documents)
    assert names == ["aes.pdf", "bears.txt", "rc4.pdf"]
    text = {Path(doc.metadata["source"]).name: doc.page_content for doc in loaded.documents}
    assert "hunt seals" in text["aes.pdf"] and "swim well" in text["rc4.pdf"]
    skipped = {Path(path).name: reason for path, reason in loaded.skipped.items()}
    assert skipped["locked.pdf"].startswith("encrypted PDF that needs a password")
    assert skipped["broken.pdf"].startswith("unreadable PDF (")
    assert skipped["binary.txt"].startswith("binary file")


def test_generate_warns_about_each_skipped_file_and_goes_on(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out" / "testset.jsonl"
    assert main(["generate", "--quiet", "--source", str(folder), "--size", "2", "--output", str(output)]) == 0
    err = capsys.readouterr().err
    for name, reason in (("broken.pdf", "unreadable PDF"), ("locked.pdf", "encrypted PDF"), ("binary.txt", "binary")):
        assert f"ragtest: warning: skipped {folder / name}: {reason}" in err
    assert len(read_jsonl(output)) == 2


def test_the_install_brings_what_pdf_decryption_needs() -> None:
    assert any(req.replace(" ", "").startswith("pypdf[crypto]") for req in metadata.requires("ragtest") or [])
    assert metadata.version("cryptography")
