"""Sphinx cross-references by label, shown as Sphinx shows them.

`:ref:`topics-spiders`` has no text of its own: Sphinx shows the title of the section the label marks
(".. _topics-spiders:" above "Spiders"), which is usually on another page. While a page is parsed the reference
is written as a mark holding its label (`label_mark`), and each reStructuredText section's labels are kept with its
title (the document's metadata "ref_labels"). Once every file is read, `resolve_documents` writes each mark as the
title its label names anywhere in the corpus, in quotation marks as a title cited in prose is ("sent to “Spiders”
for processing"; `testgen.writers.extractive` leaves quoted titles out of a document's casing, so their title-case
words are not read as names), or as the label's words when no page defines it ("topics spiders").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from docutils import nodes
from langchain_core.documents import Document

#: Metadata key of a document's labels: normalized label -> section title.
LABELS_KEY = "ref_labels"
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARK = re.compile(f"{_OPEN}([^{_CLOSE}]*){_CLOSE}")


def label_mark(label: str) -> str:
    """The placeholder for a reference to `label` (normalized as docutils names targets)."""
    return f"{_OPEN}{nodes.fully_normalize_name(label)}{_CLOSE}"


def fallback_text(label: str) -> str:
    """A label's or document name's words, for a reference whose target is not known: "topics-spiders" -> "topics
    spiders", "guide/installation" -> "installation"."""
    return label.rstrip("/").split("/")[-1].replace("-", " ").replace("_", " ")


def resolve_text(text: str, labels: Mapping[str, str]) -> str:
    """`text` with every reference mark written as its section's title (or the label's words)."""
    if _OPEN not in text:
        return text

    def shown(match: re.Match[str]) -> str:
        title = labels.get(match.group(1))
        return f"“{title}”" if title else fallback_text(match.group(1))

    return _MARK.sub(shown, text)


def merge_labels(pages: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """The labels of several pages, in page order, first definition kept (Sphinx warns on duplicates and keeps
    one)."""
    return {label: title for labels in reversed(list(pages)) for label, title in labels.items()}


def resolve_documents(documents: list[Document]) -> list[Document]:
    """The documents with their reference marks resolved against the labels they define, their sections likewise,
    and the labels taken out of their metadata."""
    labels = merge_labels(document.metadata.get(LABELS_KEY) or {} for document in documents)
    return [resolve_document(document, labels) for document in documents]


def resolve_document(document: Document, labels: Mapping[str, str]) -> Document:
    metadata = {key: value for key, value in document.metadata.items() if key != LABELS_KEY}
    if "sections" in metadata:
        metadata["sections"] = _resolve_sections(metadata["sections"], labels)
    return Document(page_content=resolve_text(document.page_content, labels), metadata=metadata)


def _resolve_sections(sections: Any, labels: Mapping[str, str]) -> Any:
    return [
        {
            **section,
            "path": [resolve_text(part, labels) for part in section["path"]],
            "blocks": [
                {**block, "text": resolve_text(block["text"], labels)}
                | ({"term": resolve_text(block["term"], labels)} if block.get("term") else {})
                for block in section["blocks"]
            ],
        }
        for section in sections
    ]
