"""End-to-end ingest (load, chunk, embed, store) in chunks/s on the hardware at hand, and what a GPU changes.

    python -m bench.gpu_embed [--copies N] [--runs cpu,cuda:float16,cuda:float32] [--no-ingest] [--no-scores]

Runs, the first the baseline of every ratio: `cpu` (the CPU as before GPUs were used: ONNX Runtime in float32 where
it can), and where torch sees a GPU also that GPU in its default float16 and in float32 (`--runs` names others,
`DEVICE[:PRECISION]`, e.g. `cpu,cpu:float16` on a machine without one). Corpus: the seven Wikipedia articles and
the HTTPX and Flask docs in tests/data, `--copies` times (every copy after the first marked every dozen words, so
that only chunks of fewer words, about 2%, repeat one another and are memoised); on a GPU ask for more copies (10:
about 33,000 chunks) so that the run is not over before it starts.

Each run: a new embedder (the model loaded and warmed before the clock starts; its load time shown apart), an
embedded Chroma store in a new temporary folder, no embedding cache. Stages as a single-process `ragtest generate`
runs them: `testgen.load_files`, `testgen.chunk_documents`, `ChunkStore.for_corpus` (embed and write; the model's
own time measured inside it). Printed per run: seconds per stage, chunks/s end to end and for the model alone, the
ratio to the baseline, and the cosine of its vectors to the baseline's on the first 500 chunks. With `--scores`
(the default): the local judge's five RAGAS metrics on WikiEval (50 rows) and FiQA (30 rows) with each run's
embedder, and per metric the largest difference to the baseline's scores and how many rows differ by more than
1e-6 (`--no-ingest`: the scores only). Absolute rates move with the machine's load; compare ratios of one run of this
bench. Measured on an H200 (`bench/gpu_run.sh`, `--copies 10`, about 5 minutes with the scores): 222 chunks/s end to
end on 16 CPU threads, 671 on the GPU in float16, 700 in float32; docs/scale.md has the table.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from langchain_core.documents import Document

import testgen
import testgen.structure
from ragtest_core.embedding_device import resolve_device
from ragtest_core.embeddings import Embedder

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SOURCES = ("wikipedia", "docs")
SAMPLE = 500
METRICS = ["faithfulness", "answer_relevancy", "context_relevance", "context_precision", "context_recall"]


class ClockedEmbedder(Embedder):
    """An embedder that adds up the time its model spends (the rest of `ChunkStore.add` is Chroma's)."""

    seconds = 0.0

    def _encode(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return super()._encode(texts)
        finally:
            self.seconds += time.perf_counter() - started


@dataclass
class Run:
    """One run's device and precision, then what it measured."""

    device: str
    precision: str | None
    embedder: ClockedEmbedder | None = None
    load_model_s: float = 0.0
    chunks: int = 0
    stages: dict[str, float] | None = None
    texts: list[str] | None = None

    @property
    def label(self) -> str:
        assert self.embedder is not None
        return f"{self.embedder.device} {self.embedder.precision} {self.embedder.backend}"

    @property
    def total_s(self) -> float:
        return sum((self.stages or {}).values())


def default_runs() -> list[str]:
    """`cpu`, then the GPU torch sees (if any) in float16 and float32."""
    device = resolve_device("auto")
    return ["cpu"] if device == "cpu" else ["cpu", f"{device}:float16", f"{device}:float32"]


def load_corpus(copies: int) -> list[Document]:
    """The shipped corpus, `copies` times: each copy after the first with a marker every twelve words."""
    documents = [doc for name in SOURCES for doc in testgen.load_files(DATA / name)]
    return documents + [marked(doc, copy) for copy in range(1, copies) for doc in documents]


def marked(document: Document, copy: int) -> Document:
    """`document` with "c<copy>" after every twelve words (of its text and of its sections' blocks, which the
    chunker reads where a parser found them), under a source of its own."""

    def mark(text: str) -> str:
        return re.sub(r"((?:\S+\s+){12})", rf"\g<1>c{copy} ", text)

    metadata = {**document.metadata, "source": f"copy{copy}/{document.metadata.get('source')}"}
    if sections := testgen.structure.sections_of(document.metadata):
        for section in sections:
            section.blocks = [replace(block, text=mark(block.text)) for block in section.blocks]
        metadata["sections"] = testgen.structure.sections_record(sections)
    return Document(page_content=mark(document.page_content), metadata=metadata)


def prepared(run: Run) -> Run:
    """`run` with a new embedder on its device, the model loaded and warmed (the time it took kept apart)."""
    run.embedder = ClockedEmbedder(device=run.device, dtype=run.precision)
    started = time.perf_counter()
    run.embedder.embed(["load the model before the clock starts"])
    run.load_model_s, run.embedder.seconds = time.perf_counter() - started, 0.0
    return run


def ingest(run: Run, copies: int) -> Run:
    """Load, chunk, embed and store the corpus with `run`'s embedder, timing each stage."""
    assert run.embedder is not None
    stages: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ragtest-gpu-embed-") as folder:
        clock = time.perf_counter()
        documents = load_corpus(copies)
        stages["load"], clock = time.perf_counter() - clock, time.perf_counter()
        chunks = testgen.chunk_documents(documents)
        stages["chunk"], clock = time.perf_counter() - clock, time.perf_counter()
        store = testgen.ChunkStore.for_corpus(Path(folder) / "chroma", run.embedder, chunks)
        stages["embed+store"] = time.perf_counter() - clock
    run.chunks, run.stages = store.embedded, stages
    run.texts = [testgen.structure.embedding_text(c.text) for c in chunks[:SAMPLE]]
    return run


def cosines(run: Run, baseline: Run) -> np.ndarray:
    assert run.embedder is not None and baseline.embedder is not None and baseline.texts is not None
    return np.asarray((run.embedder.embed(baseline.texts) * baseline.embedder.embed(baseline.texts)).sum(axis=1))


def scoring_sets() -> dict[str, pd.DataFrame]:
    from evaluation.meta_eval import load_wikieval
    from ragtest_core.datasets import read_dataset

    wiki = load_wikieval(DATA / "wikieval" / "wikieval.jsonl")
    frame = pd.DataFrame(
        [{"question": r["question"], "answer": r["answer"], "contexts": r["context_v1"]} for r in wiki]
    )
    return {
        "WikiEval": frame.assign(ground_truth=[r["answer"] for r in wiki]),
        "FiQA": read_dataset(DATA / "fiqa" / "fiqa.jsonl"),
    }


def score_differences(runs: Sequence[Run]) -> list[str]:
    """Per data set, metric and run after the first: the largest score difference to the first run's, and the rows
    differing by more than 1e-6 (a score missing in one run and not the other counts as differing)."""
    from evaluation.engine import evaluate_dataset

    lines = []
    for name, frame in scoring_sets().items():
        results = [
            evaluate_dataset(frame, metrics=METRICS, embedder=r.embedder, show_progress=False).frame for r in runs
        ]
        for run, result in zip(runs[1:], results[1:], strict=True):
            for metric in METRICS:
                a = pd.to_numeric(results[0][metric], errors="coerce").to_numpy(dtype=float)
                b = pd.to_numeric(result[metric], errors="coerce").to_numpy(dtype=float)
                gap = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(a - b))
                gap = np.where(np.isnan(gap), np.inf, gap)
                lines.append(f"{name} {metric} [{run.label}]: largest difference {gap.max():.1e}, "
                             f"{int((gap > 1e-6).sum())} of {len(gap)} rows differ by more than 1e-6")  # fmt: skip
    return lines


HEADER = (
    "| run | chunks | model load s | load s | chunk s | embed+store s (model s) | chunks/s | model chunks/s "
    "| ratio to first | cosine to first (min, mean) |\n|---|---|---|---|---|---|---|---|---|---|"
)


def row(run: Run, base: Run) -> str:
    """`run`'s line of the table, against `base` (the first run, itself for the first)."""
    assert run.embedder is not None and run.stages is not None
    rate, model_rate = run.chunks / run.total_s, run.chunks / max(run.embedder.seconds, 1e-9)
    ratio = rate / (base.chunks / base.total_s)
    close = cosines(run, base)
    return (
        f"| {run.label} | {run.chunks} | {run.load_model_s:.1f} | {run.stages['load']:.1f} | "
        f"{run.stages['chunk']:.2f} | {run.stages['embed+store']:.1f} ({run.embedder.seconds:.1f}) | {rate:.0f} | "
        f"{model_rate:.0f} | {ratio:.2f}x | {close.min():.6f}, {close.mean():.6f} |"
    )


def parse_run(spec: str) -> Run:
    device, _, precision = spec.strip().partition(":")
    return Run(device, precision or None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gpu_embed", description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1, help="copies of the shipped corpus (default 1)")
    parser.add_argument("--runs", help="DEVICE[:PRECISION],... (default: cpu, and the GPU torch sees in float16 and "
                        "float32)")  # fmt: skip
    parser.add_argument("--ingest", action=argparse.BooleanOptionalAction, default=True, help="time the ingest")
    parser.add_argument("--scores", action=argparse.BooleanOptionalAction, default=True, help="compare scores")
    args = parser.parse_args(argv)
    runs = [prepared(parse_run(spec)) for spec in (args.runs.split(",") if args.runs else default_runs())]
    if args.ingest:
        copies = max(1, args.copies)
        print(f"end-to-end ingest of the shipped corpus x{copies} (load, chunk, embed, store)\n{HEADER}", flush=True)
        for run in runs:  # each line as soon as its run ends
            print(row(ingest(run, copies), runs[0]), flush=True)
    if args.scores and len(runs) > 1:
        print("\n".join(score_differences(runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
