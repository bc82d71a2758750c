"""Run every benchmark in turn: `python -m bench` (each prints its ratios)."""

from __future__ import annotations

import importlib.util
import sys

from bench import (
    eval_bench,
    gpu_embed,
    interval_coverage,
    judge_bench,
    judge_speed,
    llm_bench,
    llm_judge_bench,
    long_text_bench,
    one_row_bench,
    ppi_coverage,
    testgen_bench,
)


def main() -> int:
    print("== bench.llm_bench: LLM runtime throughput and fault overhead ==", flush=True)
    llm_bench.main()
    print("\n== bench.llm_judge_bench: the LLM judge against its concurrency bound on the stub ==", flush=True)
    llm_judge_bench.main([])
    print("\n== bench.gpu_embed: end-to-end ingest chunks/s on the device at hand ==", flush=True)
    gpu_embed.main([])
    print("\n== bench.testgen_bench: generator calls, rejections, duplicates, retrievability ==", flush=True)
    testgen_bench.main([])
    print("\n== bench.interval_coverage: coverage of 95% interval methods at n = 8..60 ==", flush=True)
    interval_coverage.main([])
    print("\n== bench.ppi_coverage: prediction-powered intervals with a biased judge, 50-200 labels ==", flush=True)
    ppi_coverage.main([])
    print("\n== bench.eval_bench: local judge rows per second, onnx and torch embeddings ==", flush=True)
    eval_bench.main([])
    print("\n== bench.judge_speed: the default local judge on new text, to the encoder's rate; memory over 10k rows ==")
    judge_speed.main([])
    print("== bench.judge_ablation (20-40 min on 2 cores) runs alone: python -m bench.judge_ablation ==", flush=True)
    print("\n== bench.one_row_bench: start-up, one row with the local judge, against another checkout ==", flush=True)
    one_row_bench.main([])
    print("\n== bench.long_text_bench: splitting, refusal check and evaluate of a 500 KB, 1 MB and 5 MB answer ==")
    long_text_bench.main([])
    if importlib.util.find_spec("ray") is not None:
        from bench import ray_bench

        print("\n== bench.ray_bench: ingest chunks/s and local-judge rows/s, one process and 1 or 2 Ray workers ==")
        ray_bench.main([])
    else:
        print("\n== bench.ray_bench skipped: pip install 'ragtest[distributed]' ==")
    print("\n== bench.judge_bench: the LLM judge beside ragas 0.4.3 (builds .venv-ragas once) ==", flush=True)
    return judge_bench.main([])


if __name__ == "__main__":
    sys.exit(main())
