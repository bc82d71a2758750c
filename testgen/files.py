"""Local files as documents, every file accounted for: loaded, or named with the reason it was not.

Each supported type is read by its parser (`testgen.loaders`); structured formats keep their sections with a
heading path (`metadata["sections"]`, plain JSON data that `testgen.structure.sections_of` reads back). Under a
folder, a file is loaded or skipped with its reason (unsupported type, binary, unknown encoding, parse error; files
in hidden folders as one entry per folder); one broken file never stops the others. `list_files` and `read_file`
work one file at a time (a distributed ingest reads each file on its own worker).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.documents import Document

from ragtest_core.errors import SourceUnavailableError
from testgen.loaders import READERS, SkippedFile
from testgen.loaders.references import LABELS_KEY, resolve_documents
from testgen.sources import make_document
from testgen.structure import sections_record

__all__ = ["LoadedFiles", "list_files", "load_files", "read_file", "read_files"]


@dataclass
class LoadedFiles:
    """The documents read, and the files skipped with the reason for each."""

    documents: list[Document] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    #: Files loaded by suffix (".md": 23), and include markers / directives dropped while parsing them.
    loaded_types: Counter[str] = field(default_factory=Counter)
    dropped_markers: int = 0

    def warnings(self) -> list[str]:
        return [f"skipped {path}: {reason}" for path, reason in self.skipped.items()]

    def merge(self, other: LoadedFiles) -> None:
        self.documents.extend(other.documents)
        self.skipped.update(other.skipped)
        self.loaded_types.update(other.loaded_types)
        self.dropped_markers += other.dropped_markers

    def files_record(self) -> dict[str, object]:
        """The manifest's account of the files: loaded by type, skipped with reasons."""
        return {
            "loaded": sum(self.loaded_types.values()),
            "loaded_by_type": dict(sorted(self.loaded_types.items())),
            "skipped": len(self.skipped),
            "dropped_markers": self.dropped_markers,
        }


def supported() -> str:
    return ", ".join(sorted(READERS))


def read_files(path: str | Path) -> LoadedFiles:
    """Documents from one file or every file under a folder (sorted by path), and the files skipped. A missing
    path, an unsupported single file, or a folder where nothing could be loaded raises `SourceUnavailableError`."""
    root = Path(path)
    loaded = LoadedFiles()
    for file in _files(root, loaded):
        loaded.merge(read_file(file))
    loaded.documents = resolve_documents(loaded.documents)  # `:ref:`s to sections on other pages
    if not loaded.documents and loaded.skipped:
        raise SourceUnavailableError(f"no usable text under {root}: {'; '.join(loaded.warnings())}")
    return loaded


def read_file(file: Path) -> LoadedFiles:
    """One listed file (see `list_files`): its document, or the reason it was skipped (unsupported type, binary,
    unknown encoding, parse error). Its Sphinx `:ref:`s stay marks, and the document keeps its labels, for
    `testgen.loaders.references.resolve_documents` over the whole corpus."""
    loaded = LoadedFiles()
    if (reader := READERS.get(file.suffix.lower())) is None:
        loaded.skipped[str(file)] = f"unsupported file type {file.suffix or '(none)'!r} (supported: {supported()})"
        return loaded
    try:
        parsed = reader(file)
    except SkippedFile as skip:
        loaded.skipped[str(file)] = skip.reason
        return loaded
    except Exception as exc:  # a corrupt PDF, broken JSON in a notebook, a parser error: named, not fatal
        loaded.skipped[str(file)] = f"parse error: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
        return loaded
    loaded.loaded_types[file.suffix.lower()] += 1
    loaded.dropped_markers += parsed.dropped
    if parsed.text.strip():
        extra: dict[str, object] = {"encoding": parsed.encoding}
        if parsed.sections:
            extra["sections"] = sections_record(parsed.sections)
        if parsed.labels:
            extra[LABELS_KEY] = parsed.labels
        document = make_document(parsed.text.strip(), source=str(file), url=file.resolve().as_uri(), **extra)  # type: ignore[arg-type]
        loaded.documents.append(document)
    return loaded


def list_files(path: str | Path) -> list[Path]:
    """Every file `read_files` would read or name under `path` (or `path` itself), sorted (hidden folders left
    out)."""
    return _files(Path(path), LoadedFiles())


def load_files(path: str | Path) -> list[Document]:
    """The documents of `read_files` (the skipped files are left out silently: use `read_files` to name them)."""
    return read_files(path).documents


def _files(root: Path, loaded: LoadedFiles) -> list[Path]:
    if not root.exists():
        raise SourceUnavailableError(f"no such file or folder: {root}")
    if root.is_file():
        if root.suffix.lower() not in READERS:
            raise SourceUnavailableError(f"unsupported file type {root.suffix!r} for {root}; supported: {supported()}")
        return [root]
    files: list[Path] = []
    hidden: Counter[Path] = Counter()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = file.relative_to(root).parts
        if (depth := next((i for i, part in enumerate(relative[:-1]) if part.startswith(".")), None)) is not None:
            hidden[root.joinpath(*relative[: depth + 1])] += 1
        else:
            files.append(file)
    for folder, count in sorted(hidden.items()):
        loaded.skipped[f"{folder}/"] = f"hidden folder ({count} file(s) not read)"
    if not files and not hidden:
        raise SourceUnavailableError(f"no files under {root}")
    return files
