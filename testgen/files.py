"""Local files as documents: .txt, .md, .html/.htm (visible text) and .pdf (text layer)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from langchain_core.documents import Document

from ragtest_core.errors import SourceUnavailableError
from testgen.sources import make_document


def _read_text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _read_html(path: Path) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(_read_text(path), "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    lines = (line.strip() for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line)


def _read_pdf(path: Path) -> str:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip()


READERS: dict[str, Callable[[Path], str]] = {
    ".txt": _read_text,
    ".md": _read_text,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_pdf,
}


def load_files(path: str | Path) -> list[Document]:
    """Documents from one file or from every supported file under a folder (recursive, sorted by path).

    Unsupported files inside a folder are skipped; an unsupported single file, a missing path or a folder
    without any supported file raises `SourceUnavailableError`. Empty files give no document.
    """
    root = Path(path)
    if not root.exists():
        raise SourceUnavailableError(f"no such file or folder: {root}")
    if root.is_file():
        if root.suffix.lower() not in READERS:
            raise SourceUnavailableError(
                f"unsupported file type {root.suffix!r} for {root}; supported: {', '.join(sorted(READERS))}"
            )
        files = [root]
    else:
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in READERS)
        if not files:
            raise SourceUnavailableError(f"no supported files ({', '.join(sorted(READERS))}) under {root}")
    documents = []
    for file in files:
        try:
            text = READERS[file.suffix.lower()](file).strip()
        except Exception as exc:  # a corrupt PDF or unreadable file names itself
            raise SourceUnavailableError(f"could not read {file}: {exc}") from exc
        if text:
            documents.append(make_document(text, source=str(file), url=file.resolve().as_uri()))
    return documents
