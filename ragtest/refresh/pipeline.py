"""`ragtest refresh`: an old test set carried onto new versions of its sources (docs/refresh.md): `plan` matches every
old row, `refresh` writes the surviving rows in their old order, tops the set up to its old size as a partial set is
topped up (`testgen.topup`), and writes the changelog, the manifest and the carried review decisions beside it.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

import testgen
from ragtest import dry_run, partial_testsets
from ragtest.config import RunConfig
from ragtest.console import usage_for_prices
from ragtest.documents import Sources, load_sources
from ragtest.ingest import corpus_store
from ragtest.manifest import stage_manifest_path, write_manifest
from ragtest.outputs import input_manifest
from ragtest.rag_index import TESTSET_STORE_KEY, TestsetStore
from ragtest.refresh.changelog import Entry, changelog, summary_line, write_changelog
from ragtest.refresh.matching import (
    KEPT,
    MOVED,
    NEW,
    RETIRED,
    UPDATED,
    Match,
    NewCorpus,
    OldRow,
    classify,
    norm,
    page_key,
)
from ragtest.refresh.rewrite import rewrite, rewrite_call
from ragtest.review.testset_review import TestsetReview, decisions_path
from ragtest.run_state import open_run
from ragtest.steps import make_writer, mark_stage, record_sources
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import read_rows
from ragtest_core.embeddings import get_embedder
from ragtest_core.errors import RagtestError
from ragtest_core.schema import REFRESH_STATUS, TestSample
from testgen.contexts import build_contexts
from testgen.critic import grounded_call
from testgen.question_types import QuestionType
from testgen.screening import Candidate
from testgen.topup import PriorWork

#: The manifest's record of the set a refreshed set came from.
PARENT_KEY = "refreshed_from"


@dataclass
class Plan:
    """The old set, the settings it is refreshed with, the new corpus and what each old row became."""

    old: Path
    rows: list[dict[str, Any]]
    config: RunConfig
    sources: Sources
    corpus: NewCorpus
    matches: list[Match]
    #: Each old row's page (its path under the old source folder, or its title).
    pages: list[str]
    changed_pages: set[str]

    def count(self, status: str) -> int:
        return sum(1 for match in self.matches if match.status == status)

    def type_mix(self) -> str | None:
        """The old set's question types as counts (`simple=27,multi_context=13`): the mix the fill keeps (None for an
        empty set: the settings' mix)."""
        found = Counter(str(row.get("question_type") or "simple") for row in self.rows)
        return ",".join(f"{kind}={count}" for kind, count in sorted(found.items())) or None

    def missing(self) -> int:
        """New questions to write if every row to update survives."""
        return max(0, self.config.generation.size - len(self.matches) + self.count(RETIRED))


def refreshed_config(given: RunConfig, manifest: Mapping[str, Any]) -> RunConfig:
    """The old set's settings (its manifest's record) with the sources, store and LLM given now (no source given:
    the old set's own, re-read as they are now)."""
    old = dict(manifest.get("config") or {})
    record = {k: v for k, v in old.items() if k not in ("sources", "llm", "testset")}
    named = given.sources.topic or given.sources.source or given.sources.topics_file
    sources = given.sources.model_dump() if named else old.get("sources") or {}
    record.update(sources=sources, llm=given.llm.model_dump(), store_url=given.store_url)
    try:
        return RunConfig.model_validate(record)
    except ValidationError as exc:
        raise RagtestError(f"the old test set's manifest holds settings this version cannot read: {exc}") from None


def plan(given: RunConfig, old: Path) -> Plan:
    """Read the old set and its manifest, load and chunk the new sources, and match every old row."""
    if not old.is_file():
        raise RagtestError(f"--testset: not found: {old}")
    manifest = input_manifest(old)
    if not manifest or "config" not in manifest:
        raise RagtestError(f"{old} has no manifest beside it: refresh needs the settings the set was made with")
    rows = read_rows(old, required=("question",))
    config = refreshed_config(given, manifest)
    sources = load_sources(config)
    chunks = testgen.chunk_documents(sources.documents, config.generation)
    if not chunks:
        raise RagtestError("the new sources hold no text to refresh the test set from")
    root = config.sources.source
    new_hashes = {page_key(str(d["source"]), root): str(d["text_sha256"]) for d in sources.record().documents}
    old_root = ((manifest.get("config") or {}).get("sources") or {}).get("source")
    old_docs = (manifest.get("stats") or {}).get("sources") or []
    old_hashes = {page_key(str(d.get("source")), old_root): str(d.get("text_sha256")) for d in old_docs}
    corpus = NewCorpus(chunks, root, new_hashes)
    old_rows = [OldRow.of(row, old_root, old_hashes) for row in rows]
    matches = [classify(row, corpus) for row in old_rows]
    changed = {page for page, sha in new_hashes.items() if old_hashes.get(page) != sha}
    return Plan(old, rows, config, sources, corpus, matches, [row.page for row in old_rows], changed)


def dry_run_report(planned: Plan) -> str:
    """What a refresh would change and what it would cost (nothing is written or sent)."""
    lines = [
        f"dry run: refreshing {planned.old} ({len(planned.rows)} rows, size {planned.config.generation.size}) would "
        f"keep {planned.count(KEPT)}, move {planned.count(MOVED)}, ask the writer again for {planned.count(UPDATED)}, "
        f"retire {planned.count(RETIRED)} and write at least {planned.missing()} new question(s); nothing was written"
    ]
    config = planned.config
    if not config.llm.configured:
        return "\n".join([*lines, "no LLM configured: the offline writer and critic make no LLM call"])
    estimate = dry_run.RunEstimate()
    calls = []
    for row, match in zip(planned.rows, planned.matches, strict=True):
        if match.status == UPDATED:
            blocks = [chunk.text for chunk in match.gold]
            calls.append(rewrite_call(str(row["question"]), blocks))
            calls.append(grounded_call([(str(row["question"]), str(row.get("ground_truth") or ""), (1,))], blocks))
    estimate.add_planned(calls, "refresh")
    if planned.missing():
        generation = config.generation.model_copy(update={"size": planned.missing()})
        dry_run.estimate_generate(estimate, config.model_copy(update={"generation": generation}), planned.corpus.chunks)
    estimate.batch = config.llm.batch
    return "\n".join([*lines, estimate.report(usage_for_prices(config))])


def refresh(planned: Plan, output: Path, store_dir: Path, show_progress: bool = True) -> list[TestSample]:
    """Carry the planned set onto the new corpus, fill it to size, and write it with its changelog and manifest."""
    config = planned.config
    with open_run(config, output.parent, show_progress=show_progress) as state:
        mark_stage(state, "generate")
        record_sources(state, planned.sources.record(), output)
        with state.timed("embed"):
            store = corpus_store(config, store_dir, get_embedder(config.embedding_model), list(planned.corpus.chunks))
        state.stats[TESTSET_STORE_KEY] = TestsetStore.of_run(state).record()
        state.stats["store_collection"] = store.collection_name
        settings = config.generation.model_copy(update={"question_types": planned.type_mix()})
        generator = testgen.TestsetGenerator(store, make_writer(state), settings)
        with state.timed("refresh"), state.llm_stage("refresh", None):
            kept, entries = _carry_rows(planned, generator)
            samples = _fill(planned, generator, kept, state.show_progress)
        new = samples[len(kept) :]
        entries += [Entry(s.sample_id, s.question, NEW, page_key(s.source, planned.corpus.root)) for s in new]
        document = changelog(entries, planned.old, config.generation.size)
        state.stats[PARENT_KEY] = {"testset": str(planned.old), "counts": document["counts"]}
        paths = write_changelog(document, output)
        try:
            partial_testsets.write_testset(state, generator, samples, output)
        finally:
            state.stats["generation"] = generator.stats.to_dict()
            state.stats[PARENT_KEY]["review_decisions_carried"] = _carry_review(planned.old, output, entries)
            write_manifest(state, stage_manifest_path(output))
        print(f"refreshed {planned.old} into {output}: {summary_line(document['counts'])} (changelog: {paths[1]})")
    return samples


def _carry_rows(planned: Plan, generator: testgen.TestsetGenerator) -> tuple[list[TestSample], list[Entry]]:
    """The old rows that hold in the new corpus, as new samples in their old order, and every old row's entry."""
    if planned.count(UPDATED):
        generator.writer.learn(generator.store)
    kept: list[TestSample] = []
    entries: list[Entry] = []
    for row, match, page in zip(planned.rows, planned.matches, planned.pages, strict=True):
        entry = Entry(str(row.get("sample_id") or ""), str(row["question"]), match.status, page, reason=match.reason)
        sample: TestSample | None = None
        if match.status == UPDATED:
            sample, entry = _ask_again(row, match, entry, planned, generator)
        elif match.status in (KEPT, MOVED):
            sample = _remapped(row, match, generator.store.collection_name)
        if sample is not None:
            kept.append(sample)
        if entry.status == MOVED:
            entry = replace(entry, new_page=page_key(sample.source if sample else "", planned.corpus.root))
        entries.append(entry)
    return kept, entries


def _ask_again(
    row: Mapping[str, Any], match: Match, entry: Entry, planned: Plan, generator: testgen.TestsetGenerator
) -> tuple[TestSample | None, Entry]:
    """A row to update, asked again from the new chunk: updated, retired with the reason, or moved when the new
    reference is the old one."""
    store = generator.store
    context = build_contexts(store, [match.gold[0]], planned.config.generation.k_neighbours)[0]
    kind = cast(QuestionType, row.get("question_type") or "simple")
    draft, why = run_sync(rewrite(str(row["question"]), kind, context, generator.writer, generator.critic))
    if draft is None:
        return None, replace(entry, status=RETIRED, reason=f"changed: {why}")
    reference = str(row.get("ground_truth") or "")
    if norm(draft.answer) == norm(reference):  # the evidence changed around the same reference
        gold = tuple(chunk for n in draft.blocks if (chunk := context.block(n)) is not None)
        return _remapped(row, Match(MOVED, gold), store.collection_name), replace(entry, status=MOVED)
    sample = Candidate(context, draft).to_sample(generator.writer.name, store.collection_name)
    updated = TestSample.model_validate({**sample.model_dump(), "sample_id": entry.sample_id, REFRESH_STATUS: UPDATED})
    page = planned.corpus.page_of(context.root)
    return updated, replace(entry, new_page=page, old_reference=reference, new_reference=draft.answer)


def _remapped(row: Mapping[str, Any], match: Match, collection: str) -> TestSample:
    """A kept or moved row on its new chunks (ids, texts, root, source), everything else as it was."""
    gold = match.gold
    ids = [str(i) for i in row.get("reference_context_ids") or ()]
    in_place = row.get("root_id") in ids and len(gold) == len(ids)
    root = match.root or (gold[ids.index(row["root_id"])] if in_place else gold[0])
    changed: dict[str, Any] = {
        "root_id": root.chunk_id,
        "source": root.source,
        "source_url": root.url,
        "source_revision": root.revision_id,
        "corpus_id": collection,
        REFRESH_STATUS: match.status,
    }
    if gold:
        changed.update(reference_contexts=[c.text for c in gold], reference_context_ids=[c.chunk_id for c in gold])
    if root.chunk_id != row.get("root_id"):
        changed["neighbour_ids"] = []  # the old neighbours' ids name chunks of the old corpus
    return TestSample.model_validate({**row, **changed})


def _fill(
    planned: Plan, generator: testgen.TestsetGenerator, kept: list[TestSample], progress: bool
) -> list[TestSample]:
    """The kept rows, then new ones up to the size (roots of new and changed pages walked first)."""
    if len(kept) >= planned.config.generation.size:
        return kept
    generator.first = frozenset(
        c.chunk_id for c in planned.corpus.chunks if planned.corpus.page_of(c) in planned.changed_pages
    )
    made = run_sync(generator.agenerate(show_progress=progress, prior=PriorWork(tuple(kept)), allow_fewer=True))
    return [*made[: len(kept)], *(s.model_copy(update={REFRESH_STATUS: NEW}) for s in made[len(kept) :])]


def _carry_review(old: Path, output: Path, entries: Sequence[Entry]) -> int:
    """Review decisions on kept and moved rows, carried to the new set's review (0 when the old set has none)."""
    if not decisions_path(old).is_file() or not output.is_file():
        return 0
    unchanged = {e.sample_id for e in entries if e.status in (KEPT, MOVED)}
    carried = TestsetReview(old).carry_to(output, unchanged)
    if carried:
        print(f"ragtest: carried {carried} review decision(s) to {decisions_path(output)}", file=sys.stderr)
    return carried
