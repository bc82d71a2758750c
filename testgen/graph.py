"""The corpus graph, built offline at ingest with no LLM: which chunks of different sections belong together.

Nodes are chunks and the sections holding them (a section is "source > heading path"). Edges join chunks of
different sections, each with its kind and weight (docs/generation.md has the table): `link` (a chunk names another
section's heading: "see Timeouts"; the loaders keep a link's words, not its target), `term` (a rare key term both
use), `similar` (close stored embeddings, other pages) and `sibling` (opening chunks of sections with one parent;
weighted 0.5, so the other kinds come first).

What each chunk gives is kept by chunk id in the run folder's `corpus_graph.json`; a later build computes only the
chunks it has not seen and drops the ones that left the corpus. Edges are derived from those facts on load.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from testgen.chunking import Chunk
from testgen.store import ChunkStore
from testgen.structure import PATH_SEPARATOR

GRAPH_FILE = "corpus_graph.json"
#: A term used by more chunks than this share of the corpus (at least `_MIN_DF_CAP`) joins nothing: too common.
_MAX_DF_SHARE = 0.02
_MIN_DF_CAP = 4
#: Nearest chunks asked of the store per chunk, kept when on another page and at least this close.
_NEAREST = 8
MIN_SIMILARITY = 0.55
_KEEP_SIMILAR = 2
_BATCH = 256
#: Sections under one parent joined as siblings (a larger family is a list, not a set of things of one kind).
_MAX_SIBLINGS = 40
_SIBLING_WEIGHT = 0.5
#: Partners a root's context is chosen from (the strongest `most` the writer can use).
_CANDIDATES = 24

_CODE = re.compile(r"`([^`\n]{2,60})`")
_NAME = re.compile(
    r"(?<![\w.])(?:[A-Za-z_][\w]*\.)+[A-Za-z_]\w*(?:\(\))?"  # dotted: app.config, httpx.Client()
    r"|(?<![\w.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w.])"  # snake_case: follow_redirects
    r"|(?<![\w.])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+(?![\w.])"  # CamelCase: AsyncClient, JavaScript
)
_SEE = re.compile(
    r"\b(?:see(?: also)?|refer to|described in|documented in|explained in|covered in|read)\s+(?:the\s+)?"
    r"[\"“'`]?(?P<name>[A-Za-z][^.,;:\n()\"”`]{2,60})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str
    weight: float


@dataclass
class ChunkFacts:
    """What one chunk gives the graph (pure functions of its text and place, plus its nearest chunks)."""

    section: str
    page: str
    heading: str = ""
    opens_section: bool = True
    terms: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)
    similar: list[tuple[str, float]] = field(default_factory=list)


def key_terms(text: str) -> list[str]:
    """A chunk's key terms: inline code and code-like names (dotted, snake_case, CamelCase), lower-cased, sorted."""
    found = {m.strip("() ").lower() for m in _CODE.findall(text)}
    found |= {m.rstrip("()").lower() for m in _NAME.findall(text)}
    return sorted(term for term in found if len(term) > 2 and not term.isdigit() and " " not in term.strip())


def mentions(text: str) -> list[str]:
    """The words a chunk sends the reader to ("see X"), lower-cased, for matching against headings."""
    return sorted({m.group("name").strip().lower() for m in _SEE.finditer(text)})


def chunk_facts(chunk: Chunk) -> ChunkFacts:
    heading = (chunk.heading_path or "").split(PATH_SEPARATOR)[-1].strip()
    return ChunkFacts(
        section=f"{chunk.source}{PATH_SEPARATOR}{chunk.heading_path or chunk.section or ''}",  # page and heading path
        page=chunk.source,
        heading=heading.strip("` ").lower(),
        opens_section=not chunk.section_part,
        terms=key_terms(chunk.text),
        mentions=mentions(chunk.text),
    )


class CorpusGraph:
    """Chunks, the sections holding them, and the edges between chunks of different sections."""

    def __init__(self, facts: Mapping[str, ChunkFacts]) -> None:
        self.facts = dict(facts)
        self.edges = [e for edges in (_term_edges, _link_edges, _similar_edges, _sibling_edges) for e in edges(facts)]
        self._by_chunk: dict[str, list[Edge]] = defaultdict(list)
        for edge in self.edges:
            self._by_chunk[edge.source].append(edge)
            self._by_chunk[edge.target].append(Edge(edge.target, edge.source, edge.kind, edge.weight))

    def partners(self, chunk_id: str, most: int = 2) -> list[str]:
        """The chunks joined to `chunk_id`, strongest first (kinds summed per chunk; link before term before
        similar at equal weight), one per section and none of the chunk's own section."""
        own = self.facts[chunk_id].section if chunk_id in self.facts else None
        scores: dict[str, float] = defaultdict(float)
        for edge in self._by_chunk.get(chunk_id, []):
            scores[edge.target] += edge.weight + (1.0 if edge.kind == "link" else 0.0)
        chosen: list[str] = []
        sections = {own}
        for other, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0])):
            if self.facts[other].section not in sections:
                sections.add(self.facts[other].section)
                chosen.append(other)
            if len(chosen) == most:
                break
        return chosen

    def summary(self, top: int = 10) -> dict[str, Any]:
        """For the manifest and the report: sizes, edges by kind, degrees, components and the pages joined most."""
        sections = nx.Graph()
        sections.add_nodes_from({f.section for f in self.facts.values()})
        sections.add_edges_from((self.facts[e.source].section, self.facts[e.target].section) for e in self.edges)
        degrees = [d for _, d in sections.degree()]
        components = sorted((len(c) for c in nx.connected_components(sections)), reverse=True)
        pairs = (tuple(sorted((self.facts[e.source].page, self.facts[e.target].page))) for e in self.edges)
        pages = Counter(pair for pair in pairs if pair[0] != pair[1])
        return {
            "chunks": len(self.facts),
            "sections": sections.number_of_nodes(),
            "edges": dict(sorted(Counter(edge.kind for edge in self.edges).items())),
            "section_degree_mean": round(sum(degrees) / len(degrees), 2) if degrees else 0.0,
            "section_degree_max": max(degrees, default=0),
            "isolated_sections": sum(1 for d in degrees if d == 0),
            "components": len(components),
            "largest_component": components[0] if components else 0,
            "pages_joined": [
                {"pages": list(pair), "edges": count}
                for pair, count in sorted(pages.items(), key=lambda item: (-item[1], item[0]))[:top]
            ],
        }

    def save(self, path: Path) -> None:
        data = {"version": 1, "chunks": {i: asdict(f) for i, f in sorted(self.facts.items())}}
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    @staticmethod
    def load_facts(path: Path | None) -> dict[str, ChunkFacts]:
        """The chunk facts a graph file holds ({} when there is none or it is of another version)."""
        data = json.loads(path.read_text(encoding="utf-8")) if path is not None and path.exists() else {}
        if data.get("version") != 1:
            return {}
        return {
            i: ChunkFacts(**{**f, "similar": [(str(other), float(w)) for other, w in f.get("similar", [])]})
            for i, f in data["chunks"].items()
        }


def build_graph(store: ChunkStore, path: Path | None = None) -> CorpusGraph:
    """The graph of the store's corpus: the facts in `path` reused for chunks still there, the others computed
    (texts read page by page; nearest chunks from the stored vectors); written back to `path` when given."""
    known = CorpusGraph.load_facts(path)
    keys = store.chunk_keys()
    present = {key.chunk_id for key in keys}
    facts = {i: f for i, f in known.items() if i in present}
    new = [key.chunk_id for key in keys if key.chunk_id not in facts]
    for start in range(0, len(new), _BATCH):
        batch = store.get(new[start : start + _BATCH])
        facts.update((chunk.chunk_id, chunk_facts(chunk)) for chunk in batch)
        _add_similar(store, batch, facts)
    for fact in facts.values():
        fact.similar = [(i, w) for i, w in fact.similar if i in present]
    graph = CorpusGraph(facts)
    if path is not None:
        graph.save(path)
    return graph


def _add_similar(store: ChunkStore, chunks: Sequence[Chunk], facts: Mapping[str, ChunkFacts]) -> None:
    hits = store.neighbours_of([c.chunk_id for c in chunks], k=_NEAREST)
    for chunk, row in zip(chunks, hits, strict=True):
        close = [(h.id, round(1.0 - h.distance, 3)) for h in row if h.metadata.get("source") != chunk.source]
        facts[chunk.chunk_id].similar = [(i, w) for i, w in close if w >= MIN_SIMILARITY][:_KEEP_SIMILAR]


def _pairs(ids: Iterable[str], facts: Mapping[str, ChunkFacts]) -> Iterable[tuple[str, str]]:
    ordered = sorted(ids)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if facts[a].section != facts[b].section:
                yield a, b


def _term_edges(facts: Mapping[str, ChunkFacts]) -> list[Edge]:
    users: dict[str, list[str]] = defaultdict(list)
    for chunk_id, fact in facts.items():
        for term in fact.terms:
            users[term].append(chunk_id)
    cap = max(_MIN_DF_CAP, int(_MAX_DF_SHARE * len(facts)))
    weights: dict[tuple[str, str], float] = defaultdict(float)
    for ids in users.values():
        if 2 <= len(ids) <= cap:
            for pair in _pairs(ids, facts):
                weights[pair] += math.log(len(facts) / len(ids))
    return [Edge(a, b, "term", round(w, 3)) for (a, b), w in sorted(weights.items())]


def _link_edges(facts: Mapping[str, ChunkFacts]) -> list[Edge]:
    """A chunk naming a heading that only one section has, joined to that section's opening chunk."""
    openings: dict[str, list[str]] = defaultdict(list)
    for chunk_id, fact in facts.items():
        if fact.opens_section and len(fact.heading) > 3:
            openings[fact.heading].append(chunk_id)
    headings = sorted((h for h, ids in openings.items() if len(ids) == 1), key=lambda h: (-len(h), h))
    edges = set()
    for chunk_id, fact in facts.items():
        for name in fact.mentions:
            heading = next((h for h in headings if name.startswith(h)), None)
            target = openings[heading][0] if heading is not None else None
            if target is not None and facts[target].section != fact.section:
                edges.add(Edge(chunk_id, target, "link", 1.0))
    return sorted(edges, key=lambda e: (e.source, e.target))


def _similar_edges(facts: Mapping[str, ChunkFacts]) -> list[Edge]:
    best: dict[tuple[str, str], float] = {}
    for chunk_id, fact in facts.items():
        for other, weight in fact.similar:
            if other in facts and facts[other].section != fact.section:
                pair = (min(chunk_id, other), max(chunk_id, other))
                best[pair] = max(best.get(pair, 0.0), weight)
    return [Edge(a, b, "similar", w) for (a, b), w in sorted(best.items())]


def _sibling_edges(facts: Mapping[str, ChunkFacts]) -> list[Edge]:
    """Opening chunks of sections under one parent, for parents of at most `_MAX_SIBLINGS` sections."""
    families: dict[str, list[str]] = defaultdict(list)
    for chunk_id, fact in facts.items():
        if fact.opens_section:
            parent = fact.section.rsplit(PATH_SEPARATOR, 1)[0]
            families[parent if parent != fact.page else str(Path(fact.page).parent)].append(chunk_id)
    edges = [
        Edge(a, b, "sibling", _SIBLING_WEIGHT)
        for ids in families.values()
        if len(ids) <= _MAX_SIBLINGS
        for a, b in _pairs(ids, facts)
    ]
    return sorted(edges, key=lambda e: (e.source, e.target))


def joined_partners(
    graph: CorpusGraph, store: ChunkStore, root: Chunk, usable: Callable[[Chunk, Chunk], bool], most: int = 2
) -> tuple[Chunk, ...]:
    """The root's graph partners (other sections, strongest first) that `usable(root, partner)` says a question can
    join, `most` at most."""
    return tuple(chunk for chunk in store.get(graph.partners(root.chunk_id, _CANDIDATES)) if usable(root, chunk))[:most]
