"""Where an old sample's gold evidence is in the new corpus, by content, never by chunk id.

Texts are compared normalised (`norm`: inline markup marks and whitespace dropped), so a change of markup alone
matches. A page is known by its path under the source folder (or its title), so a copy of the docs in another
folder is the same page. `classify` applies docs/refresh.md's rules in their order: an old row is kept, moved, to
update (a new sentence is `UPDATE_SIMILARITY` like its evidence: `ragtest.refresh.rewrite` asks it again) or retired.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtest_core.schema import stable_id
from ragtest_core.text import content_tokens, normalise_whitespace, split_sentences, tokenize
from testgen.chunking import Chunk, chunk_id_for

KEPT, MOVED, UPDATED, RETIRED, NEW = "kept", "moved", "updated", "retired", "new"
#: A new sentence this like the old evidence (difflib's ratio over words) makes a row a candidate for an update.
UPDATE_SIMILARITY = 0.6
_MARKUP = re.compile(r"[`*_]+|^§ [^\n]*\n", re.MULTILINE)


def norm(text: str) -> str:
    """Text as compared: the chunk's heading-path line, inline markup marks (`*_` and backticks) and whitespace
    differences dropped."""
    return normalise_whitespace(_MARKUP.sub(" ", text))


def page_key(source: str, root: str | None) -> str:
    """A page's name across versions: its path under the source folder (a file's name for a one-file source), or the
    source itself (a Wikipedia title)."""
    if not root:
        return source
    base, path = Path(root), Path(source)
    if path == base:
        return path.name
    return path.relative_to(base).as_posix() if path.is_relative_to(base) else source


@dataclass
class NewCorpus:
    """The new corpus's chunks by page and by normalised text, and each page's text hash."""

    chunks: Sequence[Chunk]
    root: str | None
    page_hashes: Mapping[str, str] = field(default_factory=dict)
    by_page: dict[str, list[Chunk]] = field(default_factory=dict)
    by_text: dict[str, list[Chunk]] = field(default_factory=dict)
    normed: dict[str, str] = field(default_factory=dict)
    _sentences: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for chunk in self.chunks:
            self.by_page.setdefault(self.page_of(chunk), []).append(chunk)
            text = norm(chunk.text)
            self.normed[chunk.chunk_id] = text
            self.by_text.setdefault(text, []).append(chunk)

    def page_of(self, chunk: Chunk) -> str:
        return page_key(chunk.source, self.root)

    def sentences(self, chunk: Chunk) -> list[str]:
        if chunk.chunk_id not in self._sentences:
            self._sentences[chunk.chunk_id] = split_sentences(self.normed[chunk.chunk_id])
        return self._sentences[chunk.chunk_id]

    def first_on(self, page: str, found: Sequence[Chunk]) -> Chunk | None:
        """The first of `found` on `page`, else the first of `found`."""
        return next((c for c in found if self.page_of(c) == page), found[0] if found else None)


@dataclass(frozen=True)
class OldRow:
    """What matching reads of an old sample."""

    page: str
    doc_id: str
    contexts: tuple[str, ...]
    context_ids: tuple[str, ...]
    root_id: str
    reference: str
    span: str
    page_hash: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any], root: str | None, hashes: Mapping[str, str]) -> OldRow:
        source = str(row.get("source") or "")
        page = page_key(source, root)
        return cls(
            page=page,
            doc_id=stable_id(source),
            contexts=tuple(str(c) for c in row.get("reference_contexts") or ()),
            context_ids=tuple(str(c) for c in row.get("reference_context_ids") or ()),
            root_id=str(row.get("root_id") or ""),
            reference=str(row.get("ground_truth") or ""),
            span=str(row.get("answer_span") or ""),
            page_hash=hashes.get(page),
        )


@dataclass(frozen=True)
class Match:
    """What became of an old row: its status, the new gold chunks (kept, moved), or the chunk to rewrite from
    (update), the new root for an unanswerable row, and why it was retired."""

    status: str
    gold: tuple[Chunk, ...] = ()
    root: Chunk | None = None
    reason: str = ""


def classify(row: OldRow, corpus: NewCorpus) -> Match:
    """The row's match in the new corpus (see the module doc)."""
    if not row.contexts:
        return _unanswerable(row, corpus)
    if row.page_hash is not None and corpus.page_hashes.get(row.page) == row.page_hash:
        placed = _in_place(row, corpus)
        if placed is not None:
            return Match(KEPT, placed)
    exact = [corpus.first_on(row.page, corpus.by_text.get(norm(text), [])) for text in row.contexts]
    if all(chunk is not None for chunk in exact):
        found = tuple(chunk for chunk in exact if chunk is not None)
        same_place = all(
            corpus.page_of(chunk) == row.page and _old_id(row, chunk) == old
            for chunk, old in zip(found, row.context_ids, strict=False)
        )
        return Match(KEPT if same_place and len(found) == len(row.context_ids) else MOVED, found)
    evidence = evidence_sentences(row)
    wanted = [norm(sentence) for sentence in evidence]  # each held by a new chunk, one of its page first
    holders = [corpus.first_on(row.page, [c for c in corpus.chunks if w in corpus.normed[c.chunk_id]]) for w in wanted]
    if evidence and all(chunk is not None for chunk in holders):
        return Match(MOVED, tuple(dict.fromkeys(chunk for chunk in holders if chunk is not None)))
    best, score = most_like(evidence, row.page, corpus)
    if best is not None and score >= UPDATE_SIMILARITY:
        return Match(UPDATED, (best,))
    where = "its page is gone" if row.page not in corpus.by_page else "its page no longer holds it"
    return Match(RETIRED, reason=f"evidence gone: {where} (the most similar new sentence is {score:.0%} alike)")


def _old_id(row: OldRow, chunk: Chunk) -> str:
    """The id `chunk` would have had in the old corpus (the old page's document id, the chunk's place and text)."""
    return chunk_id_for(row.doc_id, chunk.position, chunk.text)


def _in_place(row: OldRow, corpus: NewCorpus) -> tuple[Chunk, ...] | None:
    """On an unchanged page, the chunks at the old gold chunks' places (None if one is not found)."""
    by_old_id = {_old_id(row, chunk): chunk for chunk in corpus.by_page.get(row.page, [])}
    found = [by_old_id.get(old) for old in row.context_ids]
    return tuple(c for c in found if c is not None) if found and all(found) else None


def _unanswerable(row: OldRow, corpus: NewCorpus) -> Match:
    if row.page_hash is not None and corpus.page_hashes.get(row.page) == row.page_hash:
        root = next((c for c in corpus.by_page.get(row.page, []) if _old_id(row, c) == row.root_id), None)
        if root is not None:
            return Match(KEPT, root=root)
    return Match(RETIRED, reason="unanswerable question whose page changed (its absence is not checked again)")


def evidence_sentences(row: OldRow) -> list[str]:
    """The sentence of each gold context that carries the reference: the one holding the answer span, else the one
    sharing most content words with the reference (none when no sentence shares any)."""
    target = set(content_tokens(row.span or row.reference))
    found: list[str] = []
    for text in row.contexts:
        sentences = split_sentences(norm(text))
        holding = next((s for s in sentences if norm(row.span) in s), None) if row.span else None
        best = max(((len(target & set(content_tokens(s))), -n, s) for n, s in enumerate(sentences)), default=(0, 0, ""))
        if holding or best[0] > 0:
            found.append(holding or best[2])
    return found


def most_like(evidence: Sequence[str], page: str, corpus: NewCorpus) -> tuple[Chunk | None, float]:
    """The new chunk holding the sentence most like every evidence sentence (words compared with difflib), and how
    alike: among the chunks of the row's page, or, when the page is gone, of any page that shares half the words."""
    wanted = [tokenize(sentence) for sentence in evidence]
    words = {w for sentence in wanted for w in content_tokens(" ".join(sentence))}
    pool = corpus.by_page.get(page) or [
        c for c in corpus.chunks if len(words & set(content_tokens(corpus.normed[c.chunk_id]))) * 2 >= len(words)
    ]
    alike = (
        (chunk, min(difflib.SequenceMatcher(None, old, tokens, autojunk=False).ratio() for old in wanted))
        for chunk in (pool if wanted else ())
        for tokens in map(tokenize, corpus.sentences(chunk))
    )
    return max(alike, key=lambda pair: pair[1], default=(None, 0.0))
