"""LLM runtime benchmark against the local OpenAI-compatible stub server (real langchain-openai client, real HTTP).

    python -m bench.llm_bench [--calls 500] [--rps 20] [--latency-ms 200]

1. client limit: `--llm-rps R` on the client, 200 ms per reply: achieved throughput / R (aim >= 0.9, no 429s).
2. server limit: the server answers 429 + Retry-After beyond R requests/s and the client has no rate limit: AIMD
   (adaptive concurrency) against a fixed concurrency, 429s per call and throughput / R.
3. faults: 20% of attempts faulted (429, 500, malformed body, truncated, empty, hang past the timeout) against a
   clean run: wall time ratio, and every call still answered.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass

from ragtest_core.asyncio_utils import run_sync
from ragtest_core.errors import LLMError
from ragtest_core.llm import LLMClient, LLMConfig, build_client
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.openai_wire import FaultKind

FAULT_KINDS: tuple[FaultKind, ...] = ("rate_limit", "server_error", "malformed", "truncate", "empty", "hang")
FAULTS: dict[FaultKind, float] = dict.fromkeys(FAULT_KINDS, 0.037)


@dataclass
class Result:
    calls: int
    wall_s: float
    answered: int
    rejected: int  # 429s the server sent
    retries: int

    @property
    def throughput(self) -> float:
        return self.calls / self.wall_s


def run_calls(client: LLMClient, calls: int, tag: str) -> tuple[float, int]:
    async def one(i: int) -> bool:
        try:
            return bool(await client.text(f"{tag} request {i}: say something", stage="bench"))
        except LLMError:  # gave up after every retry: counted as not answered
            return False

    async def everything() -> list[bool]:
        return await asyncio.gather(*(one(i) for i in range(calls)))

    started = time.perf_counter()
    answered = sum(run_sync(everything()))
    return time.perf_counter() - started, answered


def measure(calls: int, latency_ms: float, *, client_rps: float | None = None, server_rps: float | None = None,
            adaptive: bool = True, concurrency: int = 16, faults: dict[FaultKind, float] | None = None,
            tag: str = "") -> Result:  # fmt: skip
    with OpenAIStubServer(
        latency_ms=latency_ms, rate_limit_rps=server_rps, fault_rates=faults or {}, seed=11, retry_after=0.2,
        hang_s=1.5, lifetime_s=900,
    ) as server:  # fmt: skip
        config = LLMConfig(concurrency=concurrency, fixed_concurrency=not adaptive, rps=client_rps, timeout=1.0,
                           retries=8, backoff=0.1)  # fmt: skip
        client = build_client("stub-model", base_url=server.url, config=config)
        assert client is not None
        wall, answered = run_calls(client, calls, tag or str(time.time()))
        rejected = sum(1 for r in server.chat_requests if r.status == 429)
        return Result(calls, wall, answered, rejected, client.usage.total().retries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rps", type=float, default=20.0)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    args = parser.parse_args()
    n, rps, latency = args.calls, args.rps, args.latency_ms
    print(f"LLM runtime benchmark: {n} calls, {latency:g} ms per reply, R = {rps:g} requests/s")

    limited = measure(n, latency, client_rps=rps)
    print(
        f"1. client rate limit R: {limited.throughput:.2f} req/s in {limited.wall_s:.1f} s, "
        f"429s {limited.rejected}, answered {limited.answered}/{n}"
    )
    print(f"   throughput / R = {limited.throughput / rps:.3f}   (aim >= 0.9)")

    aimd = measure(n, latency, server_rps=rps, adaptive=True)
    fixed = measure(n, latency, server_rps=rps, adaptive=False)
    for name, result in (("AIMD (adaptive)", aimd), ("fixed concurrency 16", fixed)):
        print(
            f"2. server limit R, {name}: {result.throughput:.2f} req/s, 429s {result.rejected} "
            f"({result.rejected / n:.2f} per call), answered {result.answered}/{n}"
        )
    print(
        f"   AIMD throughput / R = {aimd.throughput / rps:.3f}; 429s per call AIMD / fixed = "
        f"{aimd.rejected / n:.3f} / {fixed.rejected / n:.3f}"
    )

    clean = measure(n, latency, tag="same")
    faulted = measure(n, latency, faults=FAULTS, tag="same")
    print(
        f"3. clean: {clean.wall_s:.1f} s; 20% faulted: {faulted.wall_s:.1f} s, {faulted.retries} retries, "
        f"answered {faulted.answered}/{n}"
    )
    print(f"   wall time faulted / clean = {faulted.wall_s / clean.wall_s:.2f}")


if __name__ == "__main__":
    main()
