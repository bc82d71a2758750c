"""Ingest as a Ray Data pipeline (docs/scale.md): list files, load each, chunk, embed with an actor pool that loads
the model once per worker, and write to the store in batches.

Every stage wraps testgen's public functions, so the chunk ids, and so the collection name, are the ones a single
process makes: a second ingest, on Ray or not, writes nothing new. With `--store-url` the workers write to the
Chroma server themselves; with a store folder the driver writes their vectors (one process writes an embedded
Chroma store). With `--ray-gpus` the embedding workers request GPUs (`embed_pool`) and embed on CUDA.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.documents import Document
from tqdm.auto import tqdm

import testgen
import testgen.store
import testgen.structure
from ragtest.distributed.logs import RayLog, logger
from ragtest.distributed.session import ray_for, worker_count
from ragtest.documents import (
    Corpus,
    SourceRecord,
    check_sources,
    describe_document,
    load_topic_pages,
)
from ragtest.run_state import RunState
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.errors import RagtestError
from testgen.chunking import Chunk
from testgen.files import list_files, read_file
from testgen.loaders.references import LABELS_KEY, merge_labels, resolve_document

#: Chunks a worker embeds and writes at a time, on a CPU ...
EMBED_BATCH = 256
#: ... and on a GPU, whose model embeds 512 texts a pass: bigger batches keep it busy between Ray's hand-offs.
GPU_EMBED_BATCH = 2048


@dataclass(frozen=True)
class EmbedPool:
    """The embedding actors: how many, and the GPUs each takes (0: they embed on their CPU)."""

    workers: int
    gpus: float = 0.0

    @property
    def device(self) -> str | None:
        """The device the actors embed on: CUDA when they hold a GPU, else their own setting (the CPU: Ray hides the
        GPUs from an actor that requested none)."""
        return "cuda" if self.gpus else None

    @property
    def batch_size(self) -> int:
        return GPU_EMBED_BATCH if self.gpus else EMBED_BATCH


def embed_pool(setting: str, cluster_gpus: float, workers: int) -> EmbedPool:
    """The pool for `--ray-gpus` (`setting`: "auto" or GPUs per worker) on a cluster with `cluster_gpus` GPUs and
    `workers` workers asked for: "auto" is one GPU a worker, one worker per GPU, when the cluster has one, else none;
    a number is that many GPUs a worker, as many workers as the GPUs hold (at most `workers`)."""
    per = (1.0 if cluster_gpus >= 1 else 0.0) if setting == "auto" else float(setting)
    if per == 0:
        return EmbedPool(workers)
    if cluster_gpus < per:
        have = f"{cluster_gpus:g} GPU(s)" if cluster_gpus else "no GPU (ray.cluster_resources() lists none)"
        raise RagtestError(
            f"--ray-gpus {setting}: each embedding worker would take {per:g} GPU(s), but the Ray cluster has {have}; "
            "use --ray-gpus auto (GPUs when the cluster has them) or 0"
        )
    return EmbedPool(max(1, min(workers, int(cluster_gpus // per))), per)


def document_row(document: Document) -> dict[str, Any]:
    return {
        "kind": "document",
        "path": "",
        "text": document.page_content,
        "metadata": json.dumps(document.metadata),
        "described": json.dumps(describe_document(document)),
        "labels": json.dumps([document.metadata.get("source"), document.metadata.get(LABELS_KEY) or {}]),
    }


def resolved_row(row: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    """A document row with its `:ref:` marks written as the corpus's section titles (as `read_files` does)."""
    if row["kind"] != "document":
        return row
    document = Document(page_content=str(row["text"]), metadata=json.loads(row["metadata"]))
    return document_row(resolve_document(document, labels))


def load_file(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One listed file: its documents (testgen's reader for its format, `:ref:`s left as marks until every file's
    labels are known), or why it was skipped."""
    loaded = read_file(Path(row["path"]))
    return [*map(document_row, loaded.documents)] + [
        {"kind": "skipped", "path": path, "text": "", "metadata": "{}", "described": reason, "labels": "[null, {}]"}
        for path, reason in loaded.skipped.items()
    ]


def chunk_rows(row: dict[str, Any], chunking: testgen.ChunkingConfig) -> list[dict[str, Any]]:
    """One document's chunks (testgen's chunker), each with its id, source, text and metadata."""
    document = Document(page_content=str(row["text"]), metadata=json.loads(row["metadata"]))
    return [
        {"chunk_id": c.chunk_id, "source": c.source, "text": c.text, "metadata": json.dumps(c.to_metadata())}
        for c in testgen.chunk_documents([document], chunking)
    ]


def chunks_of(batch: dict[str, Any]) -> list[Chunk]:
    return [
        Chunk.from_record(str(i), str(t), json.loads(m))
        for i, t, m in zip(batch["chunk_id"], batch["text"], batch["metadata"], strict=True)
    ]


def not_stored(batch: dict[str, np.ndarray], present: frozenset[str]) -> dict[str, np.ndarray]:
    """The batch's chunks whose ids are not in `present` (a function over a batch: Ray Data's row `filter` with a
    function warns on the console that it is slow)."""
    keep = np.array([str(chunk_id) not in present for chunk_id in batch["chunk_id"]], dtype=bool)
    return {name: values[keep] for name, values in batch.items()}


class EmbedAndStore:
    """A worker of the embedding pool: the model loaded once; each batch's new chunks embedded and written to the
    Chroma server (`url`), or, without a server, returned with their vectors for the driver to write."""

    def __init__(self, model: str, collection: str, url: str | None, device: str | None = None) -> None:
        self.embedder = get_embedder(model, device=device)
        self.store = testgen.ChunkStore(None, self.embedder, collection=collection, url=url) if url else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        chunks = chunks_of(batch)
        if self.store is not None:
            return {"written": np.array([self.store.add(chunks)]), "chunks": np.array([len(chunks)])}
        vectors = self.embedder.embed([testgen.structure.embedding_text(c.text) for c in chunks])  # as ChunkStore.add
        return {**batch, "embedding": list(vectors)}


def ingest_on_ray(state: RunState, store_dir: Path, embedder: Embedder) -> Corpus:
    """The run's corpus into its store collection through Ray (see the module docstring)."""
    check_sources(state.config)
    with ray_for(state) as (ray, log):
        config = state.config
        workers = worker_count(config.ray_workers)
        pool = embed_pool(config.ray_gpus, float(ray.cluster_resources().get("GPU", 0)), workers)
        with state.timed("load_sources"):
            documents, record = _load(ray, config.sources.source, load_topic_pages(config), workers)
        with state.timed("chunk"):
            chunks = documents.flat_map(chunk_rows, fn_kwargs={"chunking": config.generation}).materialize()
            keys = chunks.select_columns(["chunk_id", "source"]).to_pandas()
        if keys.empty:
            raise RagtestError("the sources hold no text to build a test set from")
        ids = keys["chunk_id"].astype(str).tolist()
        name = testgen.store.collection_for_ids(ids, embedder.model_name)
        meta = testgen.store.corpus_description([], embedder.model_name, keys["source"].astype(str), len(set(ids)))
        store = testgen.ChunkStore(store_dir, embedder, collection=name, url=config.store_url, metadata=meta)
        with state.timed("embed"):
            embedded = _embed(ray, log, store, chunks, pool, state.show_progress)
        store.embedded = embedded
        return Corpus(store, len(record.documents), len(set(ids)), embedded, record)


def _load(ray: Any, source: str | None, pages: list[Document], workers: int) -> tuple[Any, SourceRecord]:
    """The documents as a materialized dataset (files read on the workers), and their record for the manifest."""
    parts = []
    if source:
        files = [{"path": str(path)} for path in list_files(source)]
        parts.append(ray.data.from_items(files, override_num_blocks=min(len(files), 4 * workers)).flat_map(load_file))
    if pages:
        parts.append(ray.data.from_items([document_row(page) for page in pages]))
    loaded = (parts[0] if len(parts) == 1 else parts[0].union(*parts[1:])).materialize()
    rows = loaded.select_columns(["labels"]).take_all()
    defined = sorted((json.loads(row["labels"]) for row in rows), key=lambda pair: str(pair[0] or ""))
    labels = merge_labels(found for _source, found in defined)  # in file order, as `read_files` merges them
    loaded = loaded.map(resolved_row, fn_kwargs={"labels": labels}).materialize()
    info = loaded.select_columns(["kind", "path", "described"]).take_all()  # no texts: a few fields a file
    record = SourceRecord(
        [json.loads(row["described"]) for row in info if row["kind"] == "document"],
        {row["path"]: row["described"] for row in info if row["kind"] == "skipped"},
    )
    return loaded.filter(expr="kind == 'document'"), record


def _embed(ray: Any, log: RayLog, store: testgen.ChunkStore, chunks: Any, pool: EmbedPool, show_progress: bool) -> int:
    """Embed (and write) the chunks not stored yet on `pool`, a bar moving as each batch is done; returns how many
    were written."""
    url = store.url
    if url is None:  # one writer for an embedded store: only the new chunks go to the workers
        present = store.existing_ids(chunks.select_columns(["chunk_id"]).to_pandas()["chunk_id"].tolist())
        if present:
            chunks = chunks.map_batches(not_stored, fn_kwargs={"present": frozenset(present)}, batch_format="numpy")
    # spread over the workers, and done before the pool takes every CPU
    chunks = chunks.repartition(max(1, 4 * pool.workers)).materialize()
    total = chunks.count()
    if total == 0:
        return 0
    logger.info("embedding %d chunks on %d Ray workers, %g GPUs each", total, pool.workers, pool.gpus)
    embedded = chunks.map_batches(
        EmbedAndStore,
        fn_constructor_args=(store.embedder.model_name, store.collection_name, url, pool.device),
        batch_size=pool.batch_size,
        compute=ray.data.ActorPoolStrategy(size=pool.workers),
        num_cpus=1,
        num_gpus=pool.gpus,
    )
    written = 0
    with tqdm(total=total, desc="embedding on Ray", unit="chunk", disable=not show_progress) as bar:
        if url is not None:  # the workers wrote them
            for batch in log.batches(embedded, batch_size=None):
                written += sum(int(n) for n in batch["written"])
                bar.update(sum(int(n) for n in batch["chunks"]))
            return written
        for batch in log.batches(embedded, batch_size=pool.batch_size):
            written += store.write_embedded(chunks_of(batch), [list(map(float, v)) for v in batch["embedding"]])
            bar.update(len(batch["chunk_id"]))
    return written
