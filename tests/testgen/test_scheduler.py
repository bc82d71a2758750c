"""The scheduler's decisions, round by round, on real chunks and drafts (the screen that remembers accepted questions
embeds with the real model): the stop rules and type quotas, the reserve, tiers and the page share. The generation
tests run it end to end on real corpora."""

from __future__ import annotations

from ragtest_core.embeddings import Embedder
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.critic import OfflineCritic
from testgen.filters import QuestionRules
from testgen.scheduler import Scheduler, Step
from testgen.screening import Candidate, Screen
from testgen.settings import GenerationSettings
from testgen.stats import GenerationStats
from testgen.store import ChunkKey
from testgen.topup import WalkLog
from testgen.writers.base import Draft


def _chunk(number: int, page: str = "guide", heading: str | None = "Guide > Install") -> Chunk:
    return Chunk(
        chunk_id=f"{page}-{number}", text=f"Text {number}.", doc_id=page, source=page, position=number,
        heading_path=heading,
    )  # fmt: skip


def _key(chunk: Chunk) -> ChunkKey:
    return ChunkKey(chunk.chunk_id, chunk.doc_id, chunk.source, chunk.position, heading_path=chunk.heading_path)


def _candidate(chunk: Chunk, question: str, kind: str = "simple", tier: int = 0) -> Candidate:
    answer = f"The answer to {question.rstrip('?').lower()}."  # one documentation answer answers one question
    return Candidate(Context(chunk), Draft(question, answer, question_type=kind, tier=tier))  # type: ignore[arg-type]


def _scheduler(settings: GenerationSettings, chunks: list[Chunk], targets: dict[str, int]) -> Scheduler:
    return Scheduler(settings, [_key(c) for c in chunks], targets, 1, GenerationStats(), WalkLog())


def _screen(embedder: Embedder) -> Screen:
    return Screen(QuestionRules(), embedder, OfflineCritic(embedder))


def _write(scheduler: Scheduler, step: Step, questions: dict[str, list[Candidate]]) -> list[Candidate]:
    """The round's writing as the generator reports it: each root's drafts (`questions` by root id)."""
    scheduler.writing(step.pairs)
    drafts = []
    for root, kind in step.pairs:
        given = questions.get(root.chunk_id, [])
        fresh = scheduler.written(root, kind, [c.draft for c in given])
        drafts += [c for c in given if c.draft in fresh]
    return drafts


def test_a_type_the_stop_rules_stop_passes_its_missing_count_to_the_open_type(embedder: Embedder) -> None:
    chunks = [_chunk(n, heading=None) for n in range(12)]
    settings = GenerationSettings(size=4, question_types="simple=1,multi_context=1", zero_yield_patience=2)
    scheduler = _scheduler(settings, chunks, {"simple": 2, "multi_context": 2})
    screen = _screen(embedder)

    first = scheduler.next_step()
    assert first is not None and first.wanted == {"simple": 2, "multi_context": 2}
    assert [kind for _, kind in first.pairs] == ["simple", "simple", "multi_context", "multi_context"]
    multi = {root.chunk_id: [_candidate(chunks[int(root.chunk_id.split("-")[1])], q, "multi_context")]
             for (root, kind), q in zip(first.pairs, ["", "", "Who built the bridge?", "When did the war end?"],
                                        strict=True) if kind == "multi_context"}  # fmt: skip
    written = _write(scheduler, first, multi)  # the simple roots give nothing
    assert [c.draft.question for c in scheduler.place(written, [], first, screen)] == [
        "Who built the bridge?",
        "When did the war end?",
    ]

    second = scheduler.next_step()  # simple gave nothing from 2 contexts: it stops, multi_context takes its share
    assert second is not None and second.wanted == {"multi_context": 2}
    assert {kind for _, kind in second.pairs} == {"multi_context"}
    assert scheduler.targets == {"simple": 0, "multi_context": 4}
    assert scheduler.stats.warnings == [
        "question type 'simple': no question from the first 2 contexts; stopped early",
        "question type 'simple': the corpus gave only 0 of 2; 2 filled with 'multi_context'",
    ]


def test_strict_types_keep_the_share_and_the_set_falls_short(embedder: Embedder) -> None:
    chunks = [_chunk(n, heading=None) for n in range(6)]
    settings = GenerationSettings(size=2, question_types="simple", zero_yield_patience=1, strict_types=True)
    scheduler = _scheduler(settings, chunks, {"simple": 2})
    step = scheduler.next_step()
    assert step is not None
    _write(scheduler, step, {})
    assert scheduler.next_step() is None and scheduler.made == 0
    assert scheduler.stats.warnings == ["question type 'simple': no question from the first 2 contexts; stopped early"]


def test_a_page_past_its_share_waits_a_tier_and_the_next_tier_opens_after_the_lookahead(embedder: Embedder) -> None:
    """Size 2, page share 0.5: the guide page gives one question from tier 0; its second waits with the tier-1
    drafts, which open after `tier_lookahead` (1) contexts per requested question; the extra draft is unused."""
    guide = [_chunk(n) for n in range(4)]
    faq = _chunk(9, page="faq", heading="FAQ > Proxies")
    settings = GenerationSettings(size=2, question_types="simple", page_share=0.5, tier_lookahead=1)
    scheduler = _scheduler(settings, [*guide, faq], {"simple": 2})
    screen = _screen(embedder)
    assert scheduler.page_quota == 1

    step = scheduler.next_step()
    assert step is not None and [root.chunk_id for root, _ in step.pairs] == ["guide-0", "guide-1"]
    install = _candidate(guide[0], "How do you install the package?")
    proxy = _candidate(faq, "How do you set a proxy?", tier=1)
    upgrade = _candidate(guide[1], "Where does the cache folder live?")
    written = _write(scheduler, step, {"guide-0": [install, proxy], "guide-1": [upgrade]})
    assert scheduler.hold(written) == [install, upgrade] and scheduler.held == [proxy]  # tier 1 waits, unscreened
    accepted = scheduler.place([install, upgrade], [], step, screen)
    assert accepted == [install] and scheduler.stats.page_deferred == 1  # the guide gave its share
    assert scheduler.held == [proxy, upgrade]

    released = scheduler.next_step()  # 2 contexts written for 2 questions: the next tier opens, in order
    assert released is not None and not released.pairs and released.wanted == {"simple": 1}
    assert released.released == [proxy, upgrade] and scheduler.open_tier == 1 and scheduler.held == []
    assert scheduler.place(released.released, [], released, screen) == [proxy]
    assert scheduler.next_step() is None and scheduler.made == 2
    assert scheduler.unused == 1  # the deferred guide question, past its type's need, waits in the reserve


def test_max_tier_keeps_later_tiers_closed(embedder: Embedder) -> None:
    chunks = [_chunk(n) for n in range(2)]
    settings = GenerationSettings(size=1, question_types="simple", max_tier=0)
    scheduler = _scheduler(settings, chunks, {"simple": 1})
    step = scheduler.next_step()
    assert step is not None
    later = _candidate(chunks[0], "How do you build the docs?", tier=1)
    assert scheduler.hold(_write(scheduler, step, {step.pairs[0][0].chunk_id: [later]})) == []
    while (step := scheduler.next_step()) is not None:  # the roots run out; tier 1 stays closed
        assert not step.released
        _write(scheduler, step, {})
    assert scheduler.held == [later] and scheduler.unused == 1 and scheduler.made == 0


def test_drafts_past_a_types_need_wait_in_the_reserve_and_go_first_when_it_needs_more(embedder: Embedder) -> None:
    """A spare simple draft waits; when multi_context stops and its share passes to simple, the spare goes first,
    with no new writing."""
    chunks = [_chunk(n, heading=None) for n in range(8)]
    settings = GenerationSettings(size=2, question_types="simple=1,multi_context=1", zero_yield_patience=1)
    scheduler = _scheduler(settings, chunks, {"simple": 1, "multi_context": 1})
    screen = _screen(embedder)
    step = scheduler.next_step()
    assert step is not None and [kind for _, kind in step.pairs] == ["simple", "multi_context"]
    root = step.pairs[0][0]
    drafts = [_candidate(chunks[root.position], q) for q in ("Who wrote the book?", "When was the book printed?")]
    _write(scheduler, step, {root.chunk_id: drafts})  # the multi_context root gives nothing
    assert scheduler.place(drafts, [], step, screen) == [drafts[0]] and scheduler.reserve == [drafts[1]]

    again = scheduler.next_step()
    assert again is not None and again.wanted == {"simple": 1}
    assert again.reserved == [drafts[1]] and again.pairs == [] and scheduler.reserve == []
    assert scheduler.place(again.reserved, [], again, screen) == [drafts[1]] and scheduler.next_step() is None
