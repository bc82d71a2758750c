"""Speed of the default local judge on new text, as a ratio to the MiniLM encoder's own rate measured in the same run,
and its memory over 10,000 rows.

    python -m bench.judge_speed [--data ../shared/data] [--repeats 3] [--memory-rows 10000]

- Encoder rate: short sentences/s of all-MiniLM-L6-v2 alone (BEGIN's turns and responses, about 80 characters,
  embedded in one batch with an empty memo): the bound, about 400/s on 2 cores.
- Judge rate: rows/s of the engine's scoring loop (what `evaluate_dataset` does before its summary) with the five
  RAGAS metrics on 50 WikiEval rows (question, answer, context_v1 of about 4,000 characters, the answer as
  reference), every text new (an empty embedding memo, empty split caches), and the texts it embedded a row. Two
  judges: the default, and the default with the relevance recipes the ablation's accuracy rule picked before the
  speed budget (both relevance metrics on the embedding: every context sentence embedded). Repeats alternate encoder
  and judges, so load on a shared machine hits them alike; each repeat's ratio is printed. The issue's target, 15
  rows/s where the encoder does 400 sentences/s, is 37.5 rows per 1,000 encoder sentences/s.
- Memory: rows built from the seven Wikipedia articles (three to six consecutive sentences as the context, each
  question new) scored 1,000 at a time in one process: first until the bounded memos are full (the embedder keeps
  50,000 vectors, the text units 32,768 sentences: about 80 and 64 MB), then 10,000 more, with the resident set
  size after each thousand and its growth over them.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from bench import judge_data as d
from bench.judge_ablation_sets import speed_rows
from evaluation.engine import embed_in_batches, score_samples
from evaluation.local_judge import LocalJudge, LocalJudgeSettings, RelevanceSettings
from evaluation.registry import resolve_metrics
from evaluation.sample import Sample
from ragtest_core import text, textunits
from ragtest_core.asyncio_utils import run_sync
from ragtest_core.datasets import records
from ragtest_core.embeddings import Embedder, get_embedder
from ragtest_core.quick_sentences import quick_sentences

#: The issue's bound: 15 rows/s of new text where the encoder embeds 400 short sentences/s.
TARGET_ROWS_PER_S = 15.0
TARGET_ENCODER_RATE = 400.0


def fresh_embedder(base: Embedder) -> Embedder:
    """The loaded model behind an empty memo: everything it embeds is new."""
    base.embed(["load the model"])
    fresh = copy.copy(base)
    fresh._memo = OrderedDict()
    fresh._lock = threading.Lock()
    return fresh


def reset_caches() -> None:
    """Forget every memoised sentence split and text unit (a cold run)."""
    text.sentence_tuple.cache_clear()
    textunits.unit.cache_clear()
    quick_sentences.cache_clear()


def short_sentences(data: Path, count: int = 600) -> list[str]:
    lines = (data / "begin" / "begin_dev.jsonl").read_text(encoding="utf-8").splitlines()
    found: dict[str, None] = {}
    for line in lines:
        row = json.loads(line)
        for t in (row["message"], row["response"]):
            if 20 <= len(t) <= 200:
                found.setdefault(t)
    return list(found)[:count]


def encoder_rate(embedder: Embedder, data: Path) -> float:
    """Short sentences/s of the encoder alone (an empty memo)."""
    texts = short_sentences(data)
    fresh = fresh_embedder(embedder)
    started = time.perf_counter()
    embed_in_batches(fresh, texts)
    return len(texts) / (time.perf_counter() - started)


def speed_frame(data: Path, rows: int = 50) -> pd.DataFrame:
    return pd.DataFrame(speed_rows(data, rows))


def judge_rate(embedder: Embedder, frame: pd.DataFrame, settings: LocalJudgeSettings | None = None) -> float:
    """Rows/s of the local judge (the default one unless `settings`), five RAGAS metrics, on new text: what
    `evaluate_dataset` does before its summary (the engine's own scoring loop)."""
    return judge_run(embedder, frame, settings)[0]


def judge_run(embedder: Embedder, frame: pd.DataFrame, settings: LocalJudgeSettings | None = None) -> tuple[float, int]:
    """(rows/s, distinct texts embedded) of one run of the judge on new text."""
    reset_caches()
    fresh = fresh_embedder(embedder)
    started = time.perf_counter()
    samples = [Sample.from_row(row) for row in records(frame)]
    run_sync(score_samples(resolve_metrics(None), LocalJudge(fresh, settings), samples, None))
    return len(frame) / (time.perf_counter() - started), len(fresh._memo)


def memory_rows(data: Path, rows: int, seed: int = 0) -> pd.DataFrame:
    """Distinct rows from the Wikipedia articles: a context of 3-6 consecutive sentences, the answer one of them
    with its first word dropped, the question the sentence after (seeded)."""
    rng = random.Random(seed)
    pool = [
        list(quick_sentences(path.read_text(encoding="utf-8"))) for path in sorted((data / "wikipedia").glob("*.txt"))
    ]
    out = []
    for i in range(rows):
        article = pool[i % len(pool)]
        start = rng.randrange(0, len(article) - 8)
        context = article[start : start + rng.randint(3, 6)]
        answer = " ".join(rng.choice(context).split()[1:]) or context[0]
        out.append(
            {"question": f"{article[start + 7]} ({i})?", "answer": answer, "contexts": context, "ground_truth": answer}
        )
    return pd.DataFrame(out)


def rss_mb() -> float:
    import psutil

    return psutil.Process(os.getpid()).memory_info().rss / 2**20


def caches_full(embedder: Embedder) -> bool:
    """Whether the bounded memos that grow with new text are at their caps: the embedder's vectors and the text
    units (the sentence splits repeat on these rows and stay below theirs)."""
    units = textunits.unit.cache_info()
    return len(embedder._memo) >= embedder.memo_size and units.currsize >= (units.maxsize or 0)


def memory_profile(
    data: Path, rows: int, embedder: Embedder, step: int = 1000, warm_up_limit: int = 80_000
) -> list[tuple[int, float, float]]:
    """(rows scored so far, resident MB, seconds) after each `step` of `rows` rows in one process, once the bounded
    memos are full (warm-up rows first, at most `warm_up_limit`): growth then is what a long run keeps."""
    from evaluation.engine import evaluate_dataset

    frame = memory_rows(data, warm_up_limit + rows)
    start = 0
    while start < warm_up_limit and not caches_full(embedder):
        evaluate_dataset(
            frame.iloc[start : start + 4 * step].reset_index(drop=True), embedder=embedder, show_progress=False
        )
        start += 4 * step
    print(
        f"  warm-up: {start:,} rows until the memos were full ({caches_full(embedder)}): {rss_mb():.1f} MB", flush=True
    )
    out = []
    started = time.perf_counter()
    for offset in range(start, start + rows, step):
        evaluate_dataset(
            frame.iloc[offset : offset + step].reset_index(drop=True), embedder=embedder, show_progress=False
        )
        out.append((offset + step - start, rss_mb(), time.perf_counter() - started))
        print(f"  {out[-1][0]:6d} rows: {out[-1][1]:7.1f} MB resident, {out[-1][2]:6.1f} s", flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=d.DATA, help="the shared data folder (../shared/data)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-rows", type=int, default=10_000, help="0 skips the memory run")
    args = parser.parse_args(argv)
    embedder = get_embedder()
    frame = speed_frame(args.data)
    target = 1000 * TARGET_ROWS_PER_S / TARGET_ENCODER_RATE
    print(f"default local judge, five RAGAS metrics, {len(frame)} WikiEval rows of new text, {os.cpu_count()} CPU(s)")
    judges = {
        "default judge": None,
        "with the embedding relevance recipes": LocalJudgeSettings(
            answer_relevancy=RelevanceSettings(base="combined", sentences=False, noncommittal=True),
            context_relevance=RelevanceSettings(base="combined", sentences=True),
        ),
    }
    ratios: dict[str, list[float]] = {name: [] for name in judges}
    for repeat in range(max(1, args.repeats)):
        for name, settings in judges.items():
            encoder = encoder_rate(embedder, args.data)
            rate, texts = judge_run(embedder, frame, settings)
            ratios[name].append(1000 * rate / encoder)
            print(
                f"[{repeat}] {name}: encoder {encoder:6.1f} short sentences/s; judge {rate:5.1f} rows/s = "
                f"{ratios[name][-1]:.1f} rows per 1,000 encoder sentences/s (target {target:.1f}: "
                f"{ratios[name][-1] / target:.2f}x); at 400 sentences/s that is {ratios[name][-1] * 0.4:.1f} rows/s; "
                f"{texts / len(frame):.1f} texts embedded a row",
                flush=True,
            )
    for name, found in ratios.items():
        print(f"{name}: ratio to the target best {max(found) / target:.2f}x, worst {min(found) / target:.2f}x")
    if args.memory_rows:
        print(f"memory over {args.memory_rows:,} new rows, 1,000 at a time, once the bounded memos are full:")
        profile = memory_profile(args.data, args.memory_rows, embedder)
        first = profile[0][1]
        print(
            f"resident growth over the {args.memory_rows:,} rows: {profile[-1][1] - first:+.1f} MB "
            f"({profile[-1][1] / first:.3f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
