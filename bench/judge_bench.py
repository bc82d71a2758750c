"""The LLM judge beside ragas 0.4.3, in one run: same rows, metrics, stub latency and concurrency.

    python -m bench.judge_bench [--rows 50] [--repeats 3] [--latency-ms 200] [--concurrency 16]

Rows: the first `--rows` WikiEval rows (question, answer, contexts = context_v2, reference = answer), in ragas'
column names for both tools. Metrics: faithfulness, answer_relevancy, context_precision, context_recall. Each run
gets a fresh OpenAI-compatible stub (tests/stubs) that answers after `--latency-ms`: ragtest's prompts by content
(tests/stubs/responder.py), ragas' from the JSON schema in its prompt (bench/ragas_responder.py). Both tools get
`--concurrency` calls in flight: ragtest `--llm-concurrency N --llm-fixed-concurrency`, ragas
`RunConfig(max_workers=N)`. ragas runs in its own venv (`.venv-ragas`, built once by bench.ragas_venv) with
RAGAS_DO_NOT_TRACK=true; ragtest is whatever `ragtest` this interpreter imports, run through its CLI. Both run with
OMP_NUM_THREADS=--embed-threads (1: on a busy 2-core machine torch's default threads stall the event loops).

Measured at the stub: the LLM phase (first request received to last reply sent), requests/row and prompt
tokens/row (the stub's own count: words and punctuation, the same counter for both). Utilisation = achieved
calls/s / (concurrency / latency). Whole command: the subprocess' wall time. The tools alternate within a repeat
(the order flips every repeat); printed: every run, best/worst of the repeats, and the per-repeat ratios against
the issue's targets.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.ragas_responder import is_ragas_prompt, ragas_reply
from bench.ragas_venv import build_ragas_venv
from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.openai_wire import StubRequest
from tests.stubs.responder import PlausibleResponder, original_prompt

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))
METRICS = ("faithfulness", "answer_relevancy", "context_precision", "context_recall")
TOOLS = ("ragas", "ragtest")
#: The issue's targets, as ragtest / ragas ratios (speed: how many times faster; cost: the share of ragas').
TARGETS = {"llm_speed": 3.0, "whole_speed": 2.0, "tokens": 0.6, "requests": 0.9, "utilisation": 0.9}


class BenchResponder:
    """ragas prompts from their schema, ragtest's by content; notes when each request was answered."""

    def __init__(self) -> None:
        self.plausible = PlausibleResponder()
        self.replied_at: dict[int, float] = {}
        self.kinds: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, request: StubRequest) -> str | None:
        prompt = original_prompt(request)
        if is_ragas_prompt(prompt):
            reply, kind = ragas_reply(prompt), "ragas"
        else:
            reply, kind = self.plausible(request), "ragtest"
        with self._lock:
            self.replied_at[request.index] = time.monotonic()  # the stub answers after its latency
            self.kinds[kind] += 1
        return reply


def write_rows(path: Path, rows: int) -> Path:
    """WikiEval rows in ragas' column names: question, answer, contexts = context_v2, reference = answer."""
    with (DATA / "wikieval" / "wikieval.jsonl").open(encoding="utf-8") as handle:
        source = [json.loads(line) for line in handle if line.strip()][:rows]
    with path.open("w", encoding="utf-8") as out:
        for row in source:
            answer = row["answer"].removeprefix("Answer:").strip()
            sample = {
                "user_input": row["question"].removeprefix("Question:").strip(),
                "response": answer,
                "retrieved_contexts": list(row["context_v2"]),
                "reference": answer,
            }
            out.write(json.dumps(sample) + "\n")
    return path


def ragtest_pythonpath() -> str:
    """The folder of the `ragtest` this interpreter imports, so the subprocess runs the same code."""
    import ragtest

    return str(Path(ragtest.__file__).resolve().parents[1])


def command(tool: str, url: str, rows_file: Path, workdir: Path, args: argparse.Namespace, ragas: Path) -> list[str]:
    if tool == "ragas":
        worker = str(Path(__file__).resolve().parent / "ragas_worker.py")
        return [
            str(ragas),
            worker,
            "--base-url",
            url,
            "--input",
            str(rows_file),
            "--concurrency",
            str(args.concurrency),
        ]
    return [
        *(sys.executable, "-m", "ragtest.cli", "--quiet", "evaluate", "--input", str(rows_file)),
        *("--output", str(workdir / "ragtest-scores.jsonl"), "--judge", "llm", "--llm-base-url", url),
        *("--llm-concurrency", str(args.concurrency), "--llm-fixed-concurrency", "--no-cache"),
        *("--metrics", ",".join(METRICS)),
    ]


def run_one(tool: str, rows_file: Path, workdir: Path, args: argparse.Namespace, ragas: Path) -> dict[str, Any]:
    responder = BenchResponder()
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "RAGAS_DO_NOT_TRACK": "true",
        "OMP_NUM_THREADS": str(args.embed_threads),
        "PYTHONPATH": ragtest_pythonpath() if tool == "ragtest" else "",
    }
    with OpenAIStubServer(latency_ms=args.latency_ms, responder=responder, lifetime_s=3600) as stub:
        started = time.perf_counter()
        cmd = command(tool, stub.url, rows_file, workdir, args, ragas)
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=workdir, timeout=1800)
        whole = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{tool} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        answered = [r for r in stub.chat_requests if r.status == 200]
        first = min(r.received_at for r in answered)
        last = max(responder.replied_at.get(r.index, r.received_at) for r in answered)
        phase = last - first
        tokens = sum(int(r.response["usage"]["prompt_tokens"]) for r in answered if r.response)
        choices = Counter(int((r.body or {}).get("n") or 1) for r in answered)
        return {
            "tool": tool,
            "llm_phase_s": phase,
            "whole_s": whole,
            "requests": len(answered),
            "failed_requests": len(stub.chat_requests) - len(answered),
            "requests_per_row": len(answered) / args.rows,
            "prompt_tokens_per_row": tokens / args.rows,
            "utilisation": (len(answered) / phase) / (args.concurrency / (args.latency_ms / 1000)),
            "max_in_flight": stub.max_in_flight,
            "n_values": dict(choices),
            "worker": _last_json(done.stdout) if tool == "ragas" else None,
        }


def _last_json(text: str) -> dict[str, Any] | None:
    lines = [line for line in text.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def print_run(repeat: int, result: dict[str, Any]) -> None:
    print(
        f"[{repeat}] {result['tool']:8s} LLM phase {result['llm_phase_s']:6.2f} s  util {result['utilisation']:.2f}  "
        f"requests/row {result['requests_per_row']:.2f}  prompt tokens/row {result['prompt_tokens_per_row']:6.0f}  "
        f"whole {result['whole_s']:6.1f} s  max in flight {result['max_in_flight']}  n={result['n_values']}"
        + (f"  failed {result['failed_requests']}" if result["failed_requests"] else ""),
        flush=True,
    )
    worker = result.get("worker") or {}
    if worker:
        means = {k: round(v, 3) for k, v in worker.get("means", {}).items()}
        print(f"    ragas: means {means}, missing {worker.get('missing')}, embedding {worker.get('embed_s', 0):.1f} s")


def ratios(ragas: dict[str, Any], ours: dict[str, Any]) -> dict[str, float]:
    """ragtest against ragas in one repeat: speed-ups (>1 is faster) and cost shares (<1 is cheaper)."""
    return {
        "llm_speed": ragas["llm_phase_s"] / ours["llm_phase_s"],
        "whole_speed": ragas["whole_s"] / ours["whole_s"],
        "tokens": ours["prompt_tokens_per_row"] / ragas["prompt_tokens_per_row"],
        "requests": ours["requests_per_row"] / ragas["requests_per_row"],
        "utilisation": ours["utilisation"],
    }


def summarise(results: list[dict[str, Any]]) -> None:
    print("\nbest / worst of the repeats:")
    keys = ("llm_phase_s", "whole_s", "utilisation", "requests_per_row", "prompt_tokens_per_row")
    for tool in TOOLS:
        runs = [r for r in results if r["tool"] == tool]
        if not runs:
            continue
        parts = []
        for key in keys:
            values = [r[key] for r in runs]
            best, worst = (max(values), min(values)) if key == "utilisation" else (min(values), max(values))
            parts.append(f"{key} {best:.2f} / {worst:.2f}")
        print(f"  {tool:8s} " + "  ".join(parts))
    pairs = [
        ratios(a, b)
        for a, b in zip(
            [r for r in results if r["tool"] == "ragas"], [r for r in results if r["tool"] == "ragtest"], strict=False
        )
    ]
    if not pairs:
        return
    print("\nragtest vs ragas per repeat (speed = ragas time / ragtest time; cost = ragtest / ragas):")
    labels = {
        "llm_speed": "LLM phase speed-up",
        "whole_speed": "whole command speed-up",
        "tokens": "prompt tokens/row share",
        "requests": "requests/row share",
        "utilisation": "ragtest utilisation",
    }
    for key, label in labels.items():
        values = [p[key] for p in pairs]
        higher_is_better = key in ("llm_speed", "whole_speed", "utilisation")
        best, worst = (max(values), min(values)) if higher_is_better else (min(values), max(values))
        met = all(v >= TARGETS[key] for v in values) if higher_is_better else all(v <= TARGETS[key] for v in values)
        sign = ">=" if higher_is_better else "<="
        print(
            f"  {label:25s} {', '.join(f'{v:.2f}' for v in values)}  (best {best:.2f}, worst {worst:.2f}; "
            f"target {sign} {TARGETS[key]:.1f}: {'met' if met else 'not met'})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--embed-threads", type=int, default=1, help="OMP_NUM_THREADS for both tools (default 1)")
    parser.add_argument("--only", choices=TOOLS, help="run one tool only")
    parser.add_argument("--json-out", type=Path, help="also write every run's measurements here")
    args = parser.parse_args(argv)
    ragas = build_ragas_venv() if args.only != "ragtest" else Path(sys.executable)
    tools = [args.only] if args.only else list(TOOLS)
    results: list[dict[str, Any]] = []
    print(
        f"{args.rows} WikiEval rows, {', '.join(METRICS)}; stub {args.latency_ms:.0f} ms per request, "
        f"{args.concurrency} in flight; {args.repeats} repeats, tools alternating",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        workdir = Path(tmp)
        rows_file = write_rows(workdir / "wikieval-ragas.jsonl", args.rows)
        for repeat in range(max(1, args.repeats)):
            for tool in tools if repeat % 2 == 0 else reversed(tools):
                result = run_one(tool, rows_file, workdir, args, ragas)
                result["repeat"] = repeat
                results.append(result)
                print_run(repeat, result)
    results.sort(key=lambda r: (r["repeat"], TOOLS.index(r["tool"])))
    summarise(results)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
