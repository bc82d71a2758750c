"""Documents from any source, with the metadata every later stage relies on.

Each `Document` carries `source` (page title or file path), `url`, `revision_id` (None when unknown),
`doc_id` (a stable hash of the source) and `language` (detected from the text).
"""

from __future__ import annotations

from langchain_core.documents import Document

from ragtest_core.schema import stable_id
from ragtest_core.text import detect_language


def make_document(
    text: str, *, source: str, url: str | None = None, revision_id: str | None = None, **extra: str | None
) -> Document:
    """A `Document` with the standard metadata; `extra` keys are kept as they are."""
    standard = {"source": source, "url": url, "revision_id": revision_id, "doc_id": stable_id(source)}
    return Document(page_content=text, metadata={**standard, "language": detect_language(text), **extra})
