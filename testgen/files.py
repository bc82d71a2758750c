"""Local files as documents: .txt, .md, .html/.htm (visible text) and .pdf (text layer).

Text files are read as UTF-8; other encodings are detected with charset-normalizer and decoded (the encoding is
kept in the document's metadata). A file that is binary whatever its name (NUL bytes, or no text encoding fits)
is skipped, and so is text in an encoding nothing can tell: each skip is returned with its reason, so that the
command line and the manifest name the files. Very long lines are no problem: the splitter cuts them to size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.documents import Document

from ragtest_core.errors import SourceUnavailableError
from testgen.sources import make_document

#: Bytes read to tell text from binary.
SNIFF_BYTES = 8192
#: Share of control characters (other than tab, line breaks, form feed) above which decoded bytes are not text.
MAX_CONTROL_SHARE = 0.01


class SkippedFile(Exception):
    """A file that is not usable text; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class LoadedFiles:
    """The documents read, and the files skipped with the reason for each."""

    documents: list[Document] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def warnings(self) -> list[str]:
        return [f"skipped {path}: {reason}" for path, reason in self.skipped.items()]


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a text file's bytes; raises `SkippedFile` for binary data or an unknown encoding."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise SkippedFile("binary file (NUL bytes)")
    try:
        text, encoding = data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
        if best is None:
            raise SkippedFile("binary file or unknown text encoding") from None
        text, encoding = str(best), best.encoding
    sample = text[:SNIFF_BYTES]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f")
    if sample and controls / len(sample) > MAX_CONTROL_SHARE:
        raise SkippedFile(f"binary file ({controls} control characters in the first {len(sample)})")
    return text, encoding


def _read_text(path: Path) -> tuple[str, str]:
    return decode_text(path.read_bytes())


def _read_html(path: Path) -> tuple[str, str]:
    from bs4 import BeautifulSoup

    text, encoding = _read_text(path)
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    lines = (line.strip() for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line), encoding


def _read_pdf(path: Path) -> tuple[str, str]:
    """A PDF's text layer. An encrypted PDF is opened with the empty password, as viewers do (AES needs the
    `cryptography` package, which ragtest's install brings); one that needs a password, or a file that cannot be
    parsed, is skipped with its reason, like a binary file."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise SkippedFile("encrypted PDF that needs a password to open (save an unencrypted copy to use it)")
        return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip(), "pdf"
    except SkippedFile:
        raise
    except DependencyError as exc:
        message = f"encrypted PDF; decrypting it needs a missing package: {exc} (pip install cryptography)"
        raise SkippedFile(message) from None
    except Exception as exc:  # pypdf raises many kinds on a damaged file: the file is named and skipped
        raise SkippedFile(f"unreadable PDF ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None


READERS: dict[str, Callable[[Path], tuple[str, str]]] = {
    ".txt": _read_text,
    ".md": _read_text,
    ".html": _read_html,
    ".htm": _read_html,
    ".pdf": _read_pdf,
}


def read_files(path: str | Path) -> LoadedFiles:
    """Documents from one file or from every supported file under a folder (recursive, sorted by path), and the
    files skipped as binary or undecodable, each with its reason.

    Unsupported file types inside a folder are left out; an unsupported single file, a missing path, a folder
    without any supported file, or nothing usable at all raises `SourceUnavailableError`. Empty files give no
    document.
    """
    root = Path(path)
    loaded = LoadedFiles()
    for file in _files(root):
        one = read_file(file)
        loaded.documents.extend(one.documents)
        loaded.skipped.update(one.skipped)
    if not loaded.documents and loaded.skipped:
        raise SourceUnavailableError(f"no usable text under {root}: {'; '.join(loaded.warnings())}")
    return loaded


def read_file(file: Path) -> LoadedFiles:
    """One listed file (see `list_files`): its documents, or the reason it was skipped (a distributed ingest reads
    each file on its own worker)."""
    loaded = LoadedFiles()
    try:
        text, encoding = READERS[file.suffix.lower()](file)
    except SkippedFile as skip:
        loaded.skipped[str(file)] = skip.reason
        return loaded
    except Exception as exc:  # a corrupt PDF or unreadable file names itself
        raise SourceUnavailableError(f"could not read {file}: {exc}") from exc
    if text.strip():
        loaded.documents.append(
            make_document(text.strip(), source=str(file), url=file.resolve().as_uri(), encoding=encoding)
        )
    return loaded


def list_files(path: str | Path) -> list[Path]:
    """The supported files `read_files` would read under `path` (or `path` itself), sorted."""
    return _files(Path(path))


def load_files(path: str | Path) -> list[Document]:
    """The documents of `read_files` (the skipped files are left out silently: use `read_files` to name them)."""
    return read_files(path).documents


def _files(root: Path) -> list[Path]:
    if not root.exists():
        raise SourceUnavailableError(f"no such file or folder: {root}")
    if root.is_file():
        if root.suffix.lower() not in READERS:
            raise SourceUnavailableError(
                f"unsupported file type {root.suffix!r} for {root}; supported: {', '.join(sorted(READERS))}"
            )
        return [root]
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in READERS)
    if not files:
        raise SourceUnavailableError(f"no supported files ({', '.join(sorted(READERS))}) under {root}")
    return files
