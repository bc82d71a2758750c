"""Personas: who asks the questions (`--personas FILE`, a YAML or JSON list of `{name, description}`); each question
carries its persona's name (`persona`).

Offline, a persona steers which parts of the corpus are asked about (`steer_roots`; docs/generation.md, "Personas
and query styles"): a chunk goes to the persona whose description or clause it is most like, standardised over
the corpus, only when that score stands out by `NEAR` standard deviations; the rest of the corpus is asked nothing.
With an LLM the persona also shapes the wording (`testgen.writers.llm.prompt`). Chunk vectors are read from the
store a page at a time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragtest_core.errors import RagtestError
from ragtest_core.text import content_tokens
from testgen.store import ChunkKey, ChunkStore

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models
    from ragtest_core.llm.client import LLMClient

#: How far above the corpus (in standard deviations) a chunk must be on one of a persona's clauses to be asked about.
NEAR = 2.0
_CLAUSE = re.compile(r"[,;:.()]|\b(?:and|or|such as|like|including)\b")


class Persona(BaseModel):
    """Who asks: a short name (the `persona` column) and a description of what they do and care about."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)


def load_personas(path: str | Path) -> list[Persona]:
    """The personas of a YAML or JSON file (JSON is YAML): a list of `{name, description}`, names unique."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RagtestError(f"cannot read the personas file {path}: {exc}") from None
    if not isinstance(data, list) or not data:
        raise RagtestError(f"{path}: a personas file is a non-empty list of {{name, description}} entries")
    try:
        personas = [Persona.model_validate(item) for item in data]
    except ValidationError as exc:
        raise RagtestError(f"{path}: {exc}") from None
    names = [persona.name for persona in personas]
    if len(set(names)) < len(names):
        raise RagtestError(f"{path}: persona names must be unique, got {names}")
    return personas


def steer_roots(
    store: ChunkStore, roots: Sequence[ChunkKey], personas: Sequence[Persona]
) -> tuple[list[ChunkKey], dict[str, Persona]]:
    """The roots the personas ask about, in the order they take them (in turn, each its own chunks most similar
    first; ties keep the seeded order of `roots`), and the persona of each."""
    score = _scores(store, [root.chunk_id for root in roots], personas)
    owner = np.where(score.max(axis=1) > NEAR, np.argmax(score, axis=1), -1)
    queues = [
        [roots[i] for i in sorted(np.flatnonzero(owner == p).tolist(), key=lambda i: -score[i, p])]
        for p in range(len(personas))
    ]
    persona_of = {roots[i].chunk_id: personas[int(owner[i])] for i in range(len(roots)) if owner[i] >= 0}
    taken = (root for row in itertools.zip_longest(*queues) for root in row if root is not None)
    return list(taken), persona_of


def _scores(store: ChunkStore, ids: Sequence[str], personas: Sequence[Persona]) -> np.ndarray:
    """How much each chunk (rows, in `ids` order) is about each persona (columns): the best of its cosines with the
    persona's description and clauses, each standardised over the corpus."""
    texts = [_clauses(persona.description) for persona in personas]
    vectors = store.embedder.embed([text for clauses in texts for text in clauses])
    owner = np.repeat(np.arange(len(personas)), [len(clauses) for clauses in texts])
    rows = {i: n for n, i in enumerate(ids)}
    cosine = np.zeros((len(ids), len(vectors)), dtype=np.float32)
    for page_ids, page in store.vector_pages(ids):
        cosine[[rows[i] for i in page_ids]] = page @ vectors.T
    spread = cosine.std(axis=0)
    standard = (cosine - cosine.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    return np.stack([standard[:, owner == p].max(axis=1) for p in range(len(personas))], axis=1)


def _clauses(description: str) -> list[str]:
    """The description and its clauses that hold a word of content."""
    parts = (" ".join(part.split()) for part in _CLAUSE.split(description))
    return list(dict.fromkeys([description, *(part for part in parts if content_tokens(part))]))


# --- personas derived from the corpus (with an LLM) --------------------------------------------------------------

#: `--personas auto`: this many personas, one per cluster of the corpus, named by the LLM.
AUTO, DERIVED = "auto", 3
#: Chunks clustered at most (a seeded sample: memory stays bounded), passages shown to the LLM per cluster.
_CLUSTERED, _SHOWN = 5000, 5
PERSONA_PROMPT = """The passages below come from one part of a document collection. Describe one person who would \
read this part and ask questions about it: a short name for their role (two to four words), and one sentence on what \
they do that names the subjects of these passages they care about.

passages:
{passages}
"""


async def derive_personas(store: ChunkStore, llm: LLMClient, seed: int, count: int = DERIVED) -> list[Persona]:
    """`count` personas for the corpus: k-means on (a seeded sample of) the stored chunk vectors, and the LLM
    describes who reads each cluster from the passages nearest its centre."""
    keys = store.chunk_keys()
    rng = np.random.default_rng(seed)
    ids = [keys[i].chunk_id for i in sorted(rng.choice(len(keys), min(len(keys), _CLUSTERED), replace=False))]
    vectors = np.concatenate([page for _, page in store.vector_pages(ids)]) if ids else np.zeros((0, 1))
    if len(ids) < count:
        raise RagtestError(f"--personas {AUTO} needs at least {count} chunks, the store holds {len(ids)}")
    centres = _kmeans(vectors, count, rng)
    personas: list[Persona] = []
    for centre in centres:
        nearest = [ids[i] for i in np.argsort(-(vectors @ centre))[:_SHOWN]]
        passages = "\n\n".join(f"[{n}] {chunk.text}" for n, chunk in enumerate(store.get(nearest), start=1))
        persona = await llm.structured(PERSONA_PROMPT.format(passages=passages), Persona, stage="testgen")
        taken = {p.name for p in personas}
        name = persona.name if persona.name not in taken else f"{persona.name} ({len(personas) + 1})"
        personas.append(Persona(name=name, description=persona.description))
    return personas


def _kmeans(vectors: np.ndarray, count: int, rng: np.random.Generator, rounds: int = 20) -> np.ndarray:
    """`count` unit centres of the unit `vectors` (spherical k-means, seeded starts; an empty cluster keeps its
    centre)."""
    centres = vectors[rng.choice(len(vectors), count, replace=False)]
    for _ in range(rounds):
        owner = np.argmax(vectors @ centres.T, axis=1)
        for k in range(count):
            members = vectors[owner == k]
            if len(members):
                mean = members.mean(axis=0)
                centres[k] = mean / (np.linalg.norm(mean) or 1.0)
    return centres
