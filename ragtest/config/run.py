"""Everything that decides a run: the sections, plus the RAG under test, evaluation, store and Ray settings."""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from evaluation.sample import DEFAULT_MAX_FIELD_CHARS
from rag_under_test.loader import parse_adapter_args
from ragtest.config.generation import GenerationConfig
from ragtest.config.llm import LLMSettings
from ragtest.config.sources import SourceConfig
from ragtest.settings import Opt, Section, flag_of
from ragtest_core.embeddings import DEFAULT_MODEL


def parse_metric_list(text: str | None) -> list[str] | None:
    """`a, b,c` -> ["a", "b", "c"]; None or empty -> None (the default metrics)."""
    return [name.strip() for name in (text or "").split(",") if name.strip()] or None


def parse_gpus(value: object) -> str:
    """`--ray-gpus`: "auto", or GPUs per Ray embedding worker as a number of at least 0 ("1", "0.5"), as text."""
    text = str(value).strip().lower()
    with suppress(ValueError):
        if text == "auto" or float(text) >= 0:
            return text
    raise ValueError(f"must be 'auto' or a number of GPUs of at least 0 (0.5: two workers share a GPU), got {value!r}")


class RunConfig(Section):
    """Everything that decides a run's outputs (plus where they go)."""

    sources: SourceConfig = Field(default_factory=SourceConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embedding_model: Annotated[
        str,
        Field(description="sentence-transformers model for the store, the generator and the local judge"),
        Opt(group="embeddings", metavar="MODEL"),
    ] = DEFAULT_MODEL
    store_url: Annotated[
        str | None,
        Field(description="a Chroma server URL (http://host:port) instead of the embedded store"),
        Opt(group="store", metavar="URL"),
    ] = None
    rag: Annotated[
        str | None,
        Field(description="your RAG adapter, as module.path:ClassOrFactory"),
        Opt(group="rag", metavar="MODULE:CLASS", default_text="the reference RAG"),
    ] = None
    rag_args: Annotated[
        dict[str, Any],
        Field(
            description="an argument for the --rag class or factory, repeatable, e.g. --rag "
            "rag_under_test:HTTPAdapter --rag-arg url=http://127.0.0.1:8000/rag (JSON values such as 30 or true "
            "are read as such)"
        ),
        Opt(
            flag="--rag-arg",
            group="rag",
            needs="rag",
            action="append",
            metavar="NAME=VALUE",
            parse=parse_adapter_args,
            render=lambda args: [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in args.items()],
            default_text="none",
        ),
    ] = Field(default_factory=dict)
    rag_k: Annotated[
        int, Field(ge=1, description="contexts the reference RAG retrieves"), Opt(group="rag", unless="rag")
    ] = 4
    rag_chunk_size: Annotated[
        int | None,
        Field(
            ge=1,
            description="characters per chunk of the reference RAG's index: another size than the test set's builds "
            "an index of its own over the test set's documents (embedded once, cached by content)",
        ),
        Opt(group="rag", unless="rag", mirrors="chunk_size", default_text="the test set's --chunk-size"),
    ] = None
    rag_chunk_overlap: Annotated[
        int | None,
        Field(
            ge=0,
            description="characters neighbouring chunks of the reference RAG's index share (another overlap than "
            "the test set's builds an index of its own)",
        ),
        Opt(group="rag", unless="rag", mirrors="chunk_overlap", default_text="the test set's --chunk-overlap"),
    ] = None
    rag_embedding_model: Annotated[
        str | None,
        Field(
            description="sentence-transformers model of the reference RAG's retrieval and reader: another model "
            "than the test set's store's builds an index of its own over the test set's documents"
        ),
        Opt(
            group="rag",
            unless="rag",
            mirrors="embedding_model",
            metavar="MODEL",
            default_text="the model of the test set's store",
        ),
    ] = None
    rag_concurrency: Annotated[
        int | None,
        Field(
            ge=1,
            description="questions asked at once (a synchronous adapter's answer() runs in worker threads and may "
            "not be thread-safe; raise it when it is)",
        ),
        Opt(group="rag", default_text="4 for an async adapter such as the reference RAG, 1 for a synchronous one"),
    ] = None
    rag_timeout_s: Annotated[
        float, Field(gt=0, description="seconds per question"), Opt(group="rag", flag="--rag-timeout")
    ] = 120.0
    metrics: Annotated[
        list[str] | None,
        Field(description="comma-separated metric names, or 'all'"),
        BeforeValidator(lambda value: parse_metric_list(value) if isinstance(value, str) else value),
        Opt(
            group="evaluation",
            metavar="NAMES",
            parse=parse_metric_list,
            render=lambda names: [",".join(names)],
            default_text="the five RAGAS metrics",
        ),
    ] = None
    retrieval_k: Annotated[
        int | None,
        Field(
            ge=1,
            description="the cut-off of hit_rate, all_gold_hit and ndcg: a gold chunk must be among the first k "
            "contexts retrieved (names such as hit_rate@10 keep their own k)",
        ),
        Opt(group="evaluation", default_text="every context the RAG returned"),
    ] = None
    max_field_chars: Annotated[
        int,
        Field(
            ge=1000,
            description="characters of one text (an answer, question, reference or context) scored at most: a longer "
            "one is scored on its first N characters, and its rows' reasons, the summary and the console say so",
        ),
        Opt(group="evaluation", metavar="N"),
    ] = DEFAULT_MAX_FIELD_CHARS
    judge: Annotated[
        Literal["auto", "local", "llm"],
        Field(description="who scores: the LLM judge, or the local judge (auto: the LLM judge when --llm is given)"),
        Opt(group="evaluation"),
    ] = "auto"
    ray_address: Annotated[
        str | None,
        Field(
            description="run ingest (load, chunk, embed, store) and scoring on Ray (pip install "
            "'ragtest[distributed]'): --ray alone or 'auto' joins the cluster `ray start` runs here or starts a "
            "local one; or a cluster's address (host:6379, ray://host:10001)"
        ),
        Opt(
            flag="--ray",
            nargs="?",
            env="RAGTEST_RAY_ADDRESS",
            group="distributed",
            metavar="ADDRESS",
            parse=lambda address: address or "auto",  # --ray alone
        ),
    ] = None
    ray_workers: Annotated[
        int | None,
        Field(ge=1, description="Ray workers a stage uses (each takes one CPU and loads the embedding model once)"),
        Opt(group="distributed", default_text="one per CPU of the cluster", needs="ray_address"),
    ] = None
    ray_gpus: Annotated[
        str,
        Field(
            description="GPUs each Ray embedding worker of ingest takes (a fraction shares one GPU between workers): "
            "0 embeds on the workers' CPUs; 'auto' takes one GPU a worker when the cluster has GPUs, one worker per "
            "GPU, else 0"
        ),
        BeforeValidator(parse_gpus),
        Opt(group="distributed", metavar="N|auto"),
    ] = "0"
    ray_logs: Annotated[
        bool,
        Field(
            description="show Ray's own log lines and its workers' output on the console too (with --ray they "
            "always go to the run folder's ray.log)"
        ),
        Opt(group="distributed", needs="ray_address"),
    ] = False
    repeats: Annotated[
        int,
        Field(
            ge=1,
            description="score every row N times with the LLM judge (each repeat asks the model again, past the "
            "cache) and report per metric the share of rows whose verdict changed and each row's spread",
        ),
        Opt(group="evaluation", metavar="N"),
    ] = 1
    labels: Annotated[
        str | None,
        Field(
            description="human labels (labels.jsonl, as `ragtest review` writes it): every labelled metric also gets "
            "its prediction-powered mean (PPI++) with a 95% interval that corrects the judge's bias"
        ),
        Opt(group="evaluation", metavar="FILE", default_text="none"),
    ] = None
    testset: Annotated[
        str | None,
        Field(
            description="start from this test set instead of generating one (its reviewed copy X.reviewed.jsonl "
            "when `ragtest review` wrote one); the reference RAG reads the store beside it"
        ),
        Opt(group="testset", metavar="FILE", default_text="generate one", skips="generate"),
    ] = None

    @model_validator(mode="after")
    def _consistent(self) -> RunConfig:
        size, overlap = self.rag_chunk_size, self.rag_chunk_overlap
        if size is not None and overlap is not None and overlap >= size:
            names = flag_of(RunConfig, "rag_chunk_overlap"), flag_of(RunConfig, "rag_chunk_size")
            raise ValueError(f"{names[0]} ({overlap}) must be smaller than {names[1]} ({size})")
        if self.repeats > 1 and self.resolved_judge() != "llm":
            raise ValueError("--repeats needs the LLM judge (--llm SPEC or --llm-base-url URL); the local judge "
                             "gives the same score every time")  # fmt: skip
        return self

    def resolved_judge(self) -> str:
        """'llm' when an LLM is configured and the judge is 'auto', else the judge asked for ('local' offline)."""
        return ("llm" if self.llm.configured else "local") if self.judge == "auto" else self.judge
