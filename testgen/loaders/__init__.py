"""Readers for each file type, by suffix: each returns the file's text (for hashing and language detection), the
encoding it was read with, and, for formats with structure, its sections.

- .md / .markdown: markdown-it-py + mdit-py-plugins (`markdown`); .rst: docutils (`rst`); .ipynb: nbformat
  (`notebook`); .html / .htm: BeautifulSoup (`html`); .docx: python-docx (`docx`);
- .txt and .pdf: plain text (no sections: the chunker cuts the whole text).

`SkippedFile` says why a file is not read (binary, unknown encoding); any other exception is a parse error that
`testgen.files` names with its file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from testgen.structure import Section, sections_text

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
class Parsed:
    """What a reader made of one file."""

    text: str
    encoding: str
    sections: list[Section] = field(default_factory=list)
    #: Include markers and directives that pull text from elsewhere, dropped (counted for the manifest).
    dropped: int = 0
    #: Section labels a `:ref:` can name (`testgen.loaders.references`).
    labels: dict[str, str] = field(default_factory=dict)


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, encoding) of a text file's bytes; raises `SkippedFile` for binary data or an unknown encoding."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise SkippedFile("binary file (NUL bytes)")
    try:
        text, encoding = data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        if (best := from_bytes(data).best()) is None:
            raise SkippedFile("binary file or unknown text encoding") from None
        text, encoding = str(best), best.encoding
    sample = text[:SNIFF_BYTES]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f")
    if sample and controls / len(sample) > MAX_CONTROL_SHARE:
        raise SkippedFile(f"binary file ({controls} control characters in the first {len(sample)})")
    return text, encoding


def page_title(path: Path) -> str:
    """A page's title from its file name when it has no heading of its own: "event-hooks.md" -> "Event hooks"."""
    words = path.stem.replace("_", " ").replace("-", " ").split()
    if not words or words == ["index"]:
        words = path.parent.name.replace("_", " ").replace("-", " ").split() or ["index"]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def read_text(path: Path) -> Parsed:
    text, encoding = decode_text(path.read_bytes())
    return Parsed(text, encoding)


def _structured(module: str) -> Callable[[Path], Parsed]:
    """The reader of text files that `testgen.loaders.<module>.parse_<module>` parses for their structure: their
    sections and dropped markers (and, for reStructuredText, their section labels)."""

    def read(path: Path) -> Parsed:
        parse = getattr(importlib.import_module(f"testgen.loaders.{module}"), f"parse_{module}")
        text, encoding = decode_text(path.read_bytes())
        title = page_title(path)
        sections, dropped, *labels = parse(text, title)
        return Parsed(sections_text(sections, title), encoding, sections, dropped, *labels)

    return read


def read_html(path: Path) -> Parsed:
    from testgen.loaders.html import parse_html

    text, encoding = decode_text(path.read_bytes())
    sections, visible = parse_html(text, page_title(path))
    return Parsed(visible, encoding, sections)


def read_docx(path: Path) -> Parsed:
    from testgen.loaders.docx import parse_docx

    sections = parse_docx(path, page_title(path))
    return Parsed(sections_text(sections, page_title(path)), "docx", sections)


def read_pdf(path: Path) -> Parsed:
    """A PDF's text layer. An encrypted PDF is opened with the empty password, as viewers do (AES needs the
    `cryptography` package, which ragtest's install brings); one that needs a password, or a file that cannot be
    parsed, is skipped with its reason, like a binary file."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise SkippedFile("encrypted PDF that needs a password to open (save an unencrypted copy to use it)")
        text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip()
    except SkippedFile:
        raise
    except DependencyError as exc:
        message = f"encrypted PDF; decrypting it needs a missing package: {exc} (pip install cryptography)"
        raise SkippedFile(message) from None
    except Exception as exc:  # pypdf raises many kinds on a damaged file: the file is named and skipped
        raise SkippedFile(f"unreadable PDF ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None
    return Parsed(text, "pdf")


READERS: dict[str, Callable[[Path], Parsed]] = {
    ".txt": read_text,
    ".md": _structured("markdown"),
    ".markdown": _structured("markdown"),
    ".rst": _structured("rst"),
    ".ipynb": _structured("notebook"),
    ".html": read_html,
    ".htm": read_html,
    ".docx": read_docx,
    ".pdf": read_pdf,
}
