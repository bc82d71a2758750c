"""Test-set generator benchmark: `python -m bench.testgen_bench [--size 50] [--llm-size 30]`.

Prints, for the offline (extractive) writer on the seven articles of ../shared/data/wikipedia and for the LLM
writer on the scripted OpenAI-compatible stub server (tests/stubs/openai_server.py, content-based replies):
LLM calls per accepted sample (the LLM writer asks two questions of each context and the critic judges them in one
call: target <= 1.5), rejection rate by reason, duplicate rate after the filter (pairs above the threshold), and
retrievability (share of answerable samples whose gold chunk is in the top 5 of a plain MiniLM retriever over the
same ChunkStore). Also the extractive writer's turned-sentence rate per article.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from ragtest_core.embeddings import get_embedder
from ragtest_core.llm import build_client
from ragtest_core.schema import TestSample
from ragtest_core.text import split_sentences
from testgen import (
    ChunkStore,
    ExtractiveWriter,
    GenerationSettings,
    LLMWriter,
    TestsetGenerator,
    chunk_documents,
    load_files,
)
from testgen.settings import DEFAULT_DEDUP_THRESHOLD
from testgen.writers.english.clause import Casing, Skip
from testgen.writers.sentences.patterns import turn_all

ROOT = Path(__file__).resolve().parents[1]
WIKI = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data")) / "wikipedia"
LLM_TYPES = {
    "simple": 0.3,
    "reasoning": 0.1,
    "multi_context": 0.2,
    "conditional": 0.1,
    "unanswerable": 0.2,
    "distracting": 0.1,
}


def turned_rates(folder: Path) -> dict[str, tuple[int, int]]:
    """Per article: (sentences turned into at least one question, sentences)."""
    rates = {}
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        casing = Casing(text)
        sentences = split_sentences(text, "en")
        turned = 0
        for sentence in sentences:
            try:
                turn_all(sentence, casing)
                turned += 1
            except Skip:
                pass
        rates[path.stem] = (turned, len(sentences))
    return rates


def duplicate_rate(store: ChunkStore, samples: Sequence[TestSample]) -> tuple[float, int]:
    """(share of samples with a partner above the threshold, number of such pairs)."""
    vectors = store.embedder.embed([s.question for s in samples])
    similarity = vectors @ vectors.T
    pairs = [
        (i, j)
        for i in range(len(samples))
        for j in range(i + 1, len(samples))
        if similarity[i, j] > DEFAULT_DEDUP_THRESHOLD
    ]
    involved = {i for pair in pairs for i in pair}
    return (len(involved) / len(samples) if samples else 0.0), len(pairs)


def retrievability(store: ChunkStore, samples: Sequence[TestSample], k: int = 5) -> tuple[float, int]:
    """Share of answerable samples with a gold chunk among the top `k` hits of the question."""
    answerable = [s for s in samples if s.reference_context_ids]
    hits = store.query([s.question for s in answerable], k=k)
    found = sum(
        1 for s, row in zip(answerable, hits, strict=True) if set(s.reference_context_ids) & {h.id for h in row}
    )
    return (found / len(answerable) if answerable else 0.0), len(answerable)


def report(
    title: str,
    generator: TestsetGenerator,
    samples: Sequence[TestSample],
    store: ChunkStore,
    calls: int,
    seconds: float,
) -> None:
    stats = generator.stats.to_dict()
    candidates = max(1, stats["candidates"])
    dup_share, dup_pairs = duplicate_rate(store, samples)
    retrieved, answerable = retrievability(store, samples)
    print(f"\n== {title}: {len(samples)} samples in {seconds:.1f}s ==")
    print(f"types produced: {stats['produced_types']} (asked {stats['requested_types']})")
    print(f"LLM calls per accepted sample: {calls / max(1, len(samples)):.2f} ({calls} calls; target <= 1.5)")
    print(
        f"candidates {stats['candidates']} = accepted {stats['accepted']} + rejected "
        f"{sum(stats['rejections'].values())} + unused {stats['unused']}"
    )
    print(f"rejection rate: {sum(stats['rejections'].values()) / candidates:.3f} of {stats['candidates']} candidates")
    for reason, count in sorted(stats["rejections"].items(), key=lambda item: -item[1]):
        print(f"  {reason:<28} {count / candidates:.3f} ({count})")
    print(
        f"duplicate rate after the filter: {dup_share:.3f} of samples, "
        f"{dup_pairs} pairs > {DEFAULT_DEDUP_THRESHOLD} (limit 0)"
    )
    print(f"retrievability (gold in MiniLM top 5): {retrieved:.3f} of {answerable} answerable samples")
    print(f"coverage: {stats['coverage']}")
    for warning in stats["warnings"]:
        print(f"warning: {warning}")


def answer_every_context(prompt: str) -> str:
    """The scripted writer (tests/testgen/scripted_llm.py), topped up so that it answers every context with as many
    pairs as asked: questions about the content words of block [1]'s sentences, answered by the sentence."""
    import json
    import re

    from ragtest_core.text import content_tokens
    from tests.testgen.scripted_llm import _blocks, respond

    reply = respond(prompt)
    wanted = re.search(r"write exactly (\d+)", prompt)
    if wanted is None:
        return reply  # a critic prompt
    pairs = json.loads(reply)["pairs"]
    for sentence in split_sentences(_blocks(prompt).get(1, "")):
        words = [w for w in sentence.rstrip(".").split() if content_tokens(w)]
        if len(pairs) >= int(wanted.group(1)) or len(words) < 6 or not sentence.endswith("."):
            continue
        pairs.append({"question": f"What is said about {' '.join(words[:3])}?", "answer": sentence, "blocks": [1]})
    return json.dumps({"pairs": pairs[: int(wanted.group(1))]})


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--llm-size", type=int, default=30)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)

    print("== extractive writer: turned-sentence rate per article ==")
    total_turned = total = 0
    for name, (turned, sentences) in turned_rates(WIKI).items():
        total_turned, total = total_turned + turned, total + sentences
        print(f"  {name:<36} {turned:>4}/{sentences:<4} {turned / sentences:.3f}")
    print(f"  {'all':<36} {total_turned:>4}/{total:<4} {total_turned / total:.3f}")

    embedder = get_embedder()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        store = ChunkStore(Path(folder) / "store", embedder)
        store.add(chunk_documents(load_files(WIKI)))
        print(f"\nstore: {store.count()} chunks embedded in {time.perf_counter() - started:.1f}s")

        started = time.perf_counter()
        settings = GenerationSettings(size=args.size, seed=args.seed)
        offline = TestsetGenerator(store, ExtractiveWriter(seed=args.seed), settings)
        samples = offline.generate()
        report("offline extractive writer", offline, samples, store, 0, time.perf_counter() - started)

        from tests.stubs.openai_server import OpenAIStubServer
        from tests.testgen.scripted_llm import respond

        with OpenAIStubServer(responder=lambda request: respond(request.prompt)) as server:
            client = build_client("stub-model", base_url=server.url, cache_path=Path(folder) / "cache.sqlite")
            assert client is not None
            started = time.perf_counter()
            mix = ",".join(f"{kind}={weight}" for kind, weight in LLM_TYPES.items())
            settings = GenerationSettings(question_types=mix, size=args.llm_size, seed=args.seed)
            llm = TestsetGenerator(store, LLMWriter(client), settings)
            llm_samples = llm.generate()
            report(
                "LLM writer on the scripted stub server",
                llm,
                llm_samples,
                store,
                server.request_count,
                time.perf_counter() - started,
            )
        with OpenAIStubServer(responder=lambda request: answer_every_context(request.prompt)) as server:
            client = build_client("stub-model", base_url=server.url, cache_path=Path(folder) / "cache2.sqlite")
            assert client is not None
            started = time.perf_counter()
            settings = GenerationSettings(question_types="simple", size=args.llm_size, seed=args.seed)
            every = TestsetGenerator(store, LLMWriter(client), settings)
            every_samples = every.generate()
            report(
                "LLM writer that answers every context (simple questions)",
                every,
                every_samples,
                store,
                server.request_count,
                time.perf_counter() - started,
            )


if __name__ == "__main__":
    main()
