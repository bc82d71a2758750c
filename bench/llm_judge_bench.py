"""The LLM judge against its concurrency bound: how much of the LLM phase its calls fill, on the stub server.

    python -m bench.llm_judge_bench [--rows 80] [--concurrency 16] [--latency-ms 200] [--trials 3]
                                    [--harness both|nodelay|nagle]

Rows: WikiEval (50; its answer is the reference), then FiQA (30), from `RAGTEST_SHARED_DATA` (default: the copies
shipped in tests/data). Metrics: faithfulness (statements, then their verdicts), answer_relevancy, context_precision,
context_recall, scored by the LLM judge with `--concurrency` calls in flight (fixed) and no reply cache.

The OpenAI-compatible stub (tests/stubs) runs in a process of its own, as a provider would, and answers every
judge prompt by content (`PlausibleResponder`) after a fixed `--latency-ms`, with no faults. Measured at the stub:
calls, the LLM phase (first request received to last reply sent), the ideal time (calls x latency / concurrency:
the concurrency bound) and the ratio ideal / phase. Also: the ratio before the tail (the window that ends when the
last call arrives: the last calls cannot fill every slot), the tail, and the slot time left idle per call.

`--harness`: `nodelay` is the stub as it is (TCP_NODELAY, as real servers set it); `nagle` is the stub before that
fix, the harness the issue measured 0.75 on: its replies went out in two writes and the second waited for the
client's delayed ACK, about 40 ms on every call. `both` (default) runs them alternately, the same rows and load.

The machine's load average is printed with each trial: on a shared 2-core machine other processes take the CPU
that sends and reads the calls, so the best trial is the one least disturbed (as timeit takes the minimum).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import pandas as pd

from bench.judge_data import fiqa, wikieval
from evaluation.engine import evaluate_dataset
from ragtest_core.embeddings import get_embedder
from ragtest_core.llm import LLMConfig, build_client

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA") or ROOT / "tests" / "data")
METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall")
HARNESSES = ("nodelay", "nagle")
TARGET = 0.9
#: A stub request as the bench reads it back: (received_at, finished_at, HTTP status), time.monotonic() seconds.
Span = tuple[float, float, int]


def judge_rows(data: Path, rows: int) -> pd.DataFrame:
    """The first `rows` of WikiEval then FiQA: question, answer, contexts, ground_truth."""
    wiki = [
        {
            "question": r["question"],
            "answer": r["answer"],
            "contexts": list(r["context_v2"]),
            "ground_truth": r["answer"],
        }
        for r in wikieval(data)
    ]
    available = [*wiki, *fiqa(data)]
    if rows > len(available):
        raise SystemExit(f"--rows {rows}: {data} has {len(available)} WikiEval and FiQA rows")
    return pd.DataFrame(available[:rows])


def serve(conn: Connection, latency_ms: float, nagle: bool) -> None:
    """The stub, in a process of its own: sends its URL, then, when asked, every chat request's `Span`."""
    from tests.stubs.openai_handler import StubHandler
    from tests.stubs.openai_server import OpenAIStubServer
    from tests.stubs.responder import PlausibleResponder

    StubHandler.disable_nagle_algorithm = not nagle  # this process only: "nagle" is the stub before TCP_NODELAY
    with OpenAIStubServer(latency_ms=latency_ms, responder=PlausibleResponder(), lifetime_s=3600) as stub:
        conn.send(stub.url)
        conn.recv()
        conn.send([(r.received_at, r.finished_at or r.received_at, r.status or 0) for r in stub.chat_requests])


@dataclass(frozen=True)
class Trial:
    harness: str
    calls: int
    failed: int  # requests the stub did not answer with 200 (none expected: no faults)
    missing: int  # scores the judge could not give
    scores: str  # a digest of every score: the same in every trial (the stub replies by content)
    phase_s: float
    ideal_s: float
    steady: float  # the ratio in the window that ends when the last call arrives
    tail_s: float
    idle_ms: float  # slot time not spent at the stub, per call
    wall_s: float
    load: float

    @property
    def ratio(self) -> float:
        return self.ideal_s / self.phase_s


def digest(scored: pd.DataFrame) -> str:
    """A short digest of every score (rounded to 1e-9), to show that trials and harnesses score alike."""
    values = [[None if v is None else round(float(v), 9) for v in scored[m]] for m in METRICS]
    return hashlib.sha256(json.dumps(values).encode("utf-8")).hexdigest()[:12]


def occupancy(spans: Sequence[tuple[float, float]], start: float, end: float, slots: int) -> float:
    """The share of `slots` x [start, end] that the spans fill."""
    filled = sum(max(0.0, min(b, end) - max(a, start)) for a, b in spans)
    return filled / (slots * (end - start)) if end > start else 1.0


def measure(harness: str, log: Sequence[Span], args: argparse.Namespace, wall: float, scored: pd.DataFrame) -> Trial:
    answered = [(a, b) for a, b, status in log if status == 200]
    first, last = min(a for a, _ in answered), max(b for _, b in answered)
    last_arrival = max(a for a, _ in answered)
    latency, slots, phase = args.latency_ms / 1000, args.concurrency, last - first
    served = sum(b - a for a, b in answered)
    return Trial(
        harness=harness,
        calls=len(answered),
        failed=len(log) - len(answered),
        missing=int(scored[list(METRICS)].isna().sum().sum()),
        scores=digest(scored),
        phase_s=phase,
        ideal_s=len(answered) * latency / slots,
        steady=occupancy([(a, min(b, a + latency)) for a, b in answered], first, last_arrival, slots),
        tail_s=last - last_arrival,
        idle_ms=1000 * (slots * phase - served) / len(answered),
        wall_s=wall,
        load=os.getloadavg()[0],
    )


def run_trial(frame: pd.DataFrame, harness: str, args: argparse.Namespace) -> Trial:
    """Score `frame` with the LLM judge against a fresh stub; what the stub saw."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    stub = context.Process(target=serve, args=(theirs, args.latency_ms, harness == "nagle"), daemon=True)
    stub.start()
    try:
        url = ours.recv()
        config = LLMConfig(concurrency=args.concurrency, fixed_concurrency=True, timeout=120, retries=2)
        client = build_client("stub-model", base_url=url, config=config)  # no cache: every call reaches the stub
        started = time.perf_counter()
        result = evaluate_dataset(frame, metrics=list(METRICS), judge="llm", llm=client, show_progress=False)
        wall = time.perf_counter() - started
        ours.send("log")
        log: list[Span] = ours.recv()
    finally:
        stub.join(timeout=30)
        if stub.is_alive():
            stub.terminate()
    return measure(harness, log, args, wall, result.frame)


def print_trial(number: int, trial: Trial) -> None:
    problems = f"  FAILED {trial.failed} requests" if trial.failed else ""
    problems += f"  {trial.missing} scores missing" if trial.missing else ""
    print(
        f"[{number}] {trial.harness:7s} {trial.calls} calls  LLM phase {trial.phase_s:5.2f} s"
        f"  ideal {trial.ideal_s:5.2f} s  ratio {trial.ratio:.3f}"
        f"  (before the tail {trial.steady:.3f}; tail {trial.tail_s:.2f} s)"
        f"  idle {trial.idle_ms:4.1f} ms/call  wall {trial.wall_s:5.2f} s  load {trial.load:.1f}{problems}",
        flush=True,
    )


def summarise(trials: Sequence[Trial]) -> None:
    digests = sorted({t.scores for t in trials})
    print(f"\nscores: {'the same in every trial' if len(digests) == 1 else 'DIFFER'} ({', '.join(digests)})")
    print("ideal / actual LLM phase, per harness (best, median, worst of the trials):")
    for harness in HARNESSES:
        ratios = sorted((t.ratio for t in trials if t.harness == harness), reverse=True)
        if not ratios:
            continue
        verdict = "met" if ratios[0] >= TARGET else "not met"
        print(
            f"  {harness:7s} {ratios[0]:.3f}, {statistics.median(ratios):.3f}, {ratios[-1]:.3f}"
            f"  (target >= {TARGET} on the best trial: {verdict})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_judge_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=80, help="WikiEval rows, then FiQA rows (80 at most)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--harness", choices=("both", *HARNESSES), default="both")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    frame = judge_rows(args.data, args.rows)
    harnesses = list(HARNESSES) if args.harness == "both" else [args.harness]
    print(
        f"{len(frame)} rows ({', '.join(METRICS)}); stub {args.latency_ms:g} ms a call, {args.concurrency} in flight; "
        f"{args.trials} trial(s) of {', '.join(harnesses)}; {os.cpu_count()} CPUs",
        flush=True,
    )
    get_embedder().embed(["warm-up"])  # the model loads once, before the first trial's LLM phase
    trials: list[Trial] = []
    for number in range(1, max(1, args.trials) + 1):
        for harness in harnesses if number % 2 else reversed(harnesses):
            trials.append(run_trial(frame, harness, args))
            print_trial(number, trials[-1])
    summarise(trials)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
