"""Run configuration: every setting of a run, each declared once as a typed field with its default, help text and
validation (see `ragtest.settings` for what is derived from these models: the CLI flags, `make_config`, the
manifest's record).

Defaults owned by a stage or the core are read from there: chunking and generation defaults from `testgen`, the
LLM runtime's from `ragtest_core.llm.LLMConfig`, the embedding model from `ragtest_core.embeddings`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from evaluation.sample import DEFAULT_MAX_FIELD_CHARS
from rag_under_test.loader import parse_adapter_args
from ragtest.settings import Opt, Section, flag_of
from ragtest_core.embeddings import DEFAULT_MODEL
from ragtest_core.llm import LLMConfig
from ragtest_core.llm.config import StructuredOutput
from testgen import ChunkingConfig, StopRules
from testgen.contexts import DEFAULT_K_NEIGHBOURS
from testgen.filters import DEFAULT_MAX_COPIED_WORDS, DEFAULT_MAX_WORDS
from testgen.screening import DEFAULT_DEDUP_THRESHOLD

_CHUNKING = ChunkingConfig()
_STOP = StopRules()
_RUNTIME = LLMConfig()
DEFAULT_SEPARATORS: tuple[str, ...] = _CHUNKING.separators
CACHE_DIR_ENV = "RAGTEST_CACHE_DIR"
WIKI_CACHE_ENV = "RAGTEST_WIKI_CACHE"
OFFLINE_ENV = "RAGTEST_OFFLINE"
PRICES_ENV = "RAGTEST_PRICES"
RAY_ADDRESS_ENV = "RAGTEST_RAY_ADDRESS"


def decode_separator(text: str) -> str:
    """A separator as typed on the command line: backslash escapes (\\n, \\t, \\\\) decoded."""
    return text.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def _separators_in(words: list[str]) -> tuple[str, ...]:
    return tuple(decode_separator(word) for word in words)


def _separators_out(value: tuple[str, ...]) -> list[str]:
    return [sep.encode("unicode_escape").decode("ascii") for sep in value]


def parse_metric_list(text: str | None) -> list[str] | None:
    """`a, b,c` -> ["a", "b", "c"]; None or empty -> None (the default metrics)."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    return names or None


def _ray_address(value: str | None) -> str:
    """`--ray` alone means "auto"."""
    return value or "auto"


def _rag_args_out(value: dict[str, Any]) -> list[str]:
    return [f"{name}={json.dumps(item) if not isinstance(item, str) else item}" for name, item in value.items()]


class SourceConfig(Section):
    """Where the documents come from."""

    group = "sources"
    model_config = ConfigDict(coerce_numbers_to_str=True)

    topic: Annotated[
        str | None,
        Field(
            description='a Wikipedia page title, e.g. "Python (programming language)" ("Title@revid" pins a revision)'
        ),
    ] = None
    source: Annotated[
        str | None, Field(description="a local file or folder of documents (.txt, .md, .rst, .ipynb, .html, .pdf)")
    ] = None
    revision: Annotated[
        str | None, Field(description="the revision id of --topic's page to load (pins the test set's source)")
    ] = None
    topics_file: Annotated[
        str | None,
        Field(description="a file of Wikipedia topics, one a line: Title or Title@revid"),
        Opt(flag="--topics", metavar="FILE"),
    ] = None
    wiki_cache: Annotated[
        str | None,
        Field(description="folder of cached Wikipedia pages (Title_with_underscores.txt)"),
        Opt(env=WIKI_CACHE_ENV, metavar="DIR"),
    ] = None
    wiki_timeout_s: Annotated[
        float, Field(gt=0, description="seconds per Wikipedia request"), Opt(flag="--wiki-timeout")
    ] = 10.0
    offline: Annotated[
        bool,
        Field(description="read Wikipedia pages from the cache only, never the network"),
        Opt(env=OFFLINE_ENV),
    ] = False

    def resolved_cache(self) -> str | None:
        return self.wiki_cache


class GenerationConfig(Section):
    """How the test set is written."""

    group = "generation"

    size: Annotated[int, Field(ge=1, description="questions to generate")] = 20
    seed: Annotated[int, Field(description="random seed: the same sources and seed give the same test set")] = 42
    k_neighbours: Annotated[
        int, Field(ge=0, description="neighbour chunks joined to each root chunk as its context")
    ] = DEFAULT_K_NEIGHBOURS
    questions_per_context: Annotated[
        int | None,
        Field(ge=1, description="questions asked of each context (more when roots run out)"),
        Opt(default_text="1 offline, 2 with an LLM writer"),
    ] = None
    chunk_size: Annotated[int, Field(ge=1, description="characters per chunk at most")] = _CHUNKING.chunk_size
    chunk_overlap: Annotated[int, Field(ge=0, description="characters neighbouring chunks share")] = (
        _CHUNKING.chunk_overlap
    )
    separators: Annotated[
        tuple[str, ...],
        Field(description="where chunks may be cut, tried in order (backslash escapes such as \\n work)"),
        Opt(
            nargs="+",
            metavar="SEP",
            parse=_separators_in,
            render=_separators_out,
            default_text=" ".join(repr(s) for s in DEFAULT_SEPARATORS) + ", then ' ' and ''",
        ),
    ] = DEFAULT_SEPARATORS
    max_question_words: Annotated[
        int, Field(ge=1, description="words a question may have at most (Chinese and Japanese: two characters a word)")
    ] = DEFAULT_MAX_WORDS
    question_types: Annotated[
        str | None,
        Field(
            description="type mix, e.g. simple=0.5,multi_context=0.25,unanswerable=0.25 (types: simple, reasoning, "
            "multi_context, conditional, unanswerable, distracting)"
        ),
        Opt(default_text="what the writer can do: simple and multi_context offline, every type with an LLM"),
    ] = None
    dedup_threshold: Annotated[
        float, Field(gt=0.0, le=1.0, description="embedding cosine above which two questions are duplicates")
    ] = DEFAULT_DEDUP_THRESHOLD
    max_copied_words: Annotated[
        int, Field(ge=1, description="longest run of words a question may copy from its context")
    ] = DEFAULT_MAX_COPIED_WORDS
    critic: Annotated[
        Literal["auto", "llm", "offline"],
        Field(description="groundedness check: the LLM critic or the offline support check (auto: LLM when given)"),
    ] = "auto"
    strict_types: Annotated[bool, Field(description="fail instead of filling a type's shortfall with other types")] = (
        False
    )
    zero_yield_patience: Annotated[
        int, Field(ge=1, description="contexts a question type may try without any question before it stops early")
    ] = _STOP.zero_yield_patience
    low_yield_contexts: Annotated[
        int, Field(ge=1, description="contexts after which a type with a yield under --low-yield-rate stops early")
    ] = _STOP.low_yield_contexts
    low_yield_rate: Annotated[
        float, Field(ge=0.0, le=1.0, description="questions a context a type must reach (0: never stop for it)")
    ] = _STOP.low_yield_rate
    max_questions_per_context: Annotated[
        int, Field(ge=1, description="questions one context may be asked at most when the roots run out")
    ] = _STOP.max_questions_per_context

    @model_validator(mode="after")
    def _overlap_below_size(self) -> GenerationConfig:
        if self.chunk_overlap >= self.chunk_size:
            overlap, size = flag_of(GenerationConfig, "chunk_overlap"), flag_of(GenerationConfig, "chunk_size")
            raise ValueError(f"{overlap} ({self.chunk_overlap}) must be smaller than {size} ({self.chunk_size})")
        return self

    def chunking(self) -> ChunkingConfig:
        return ChunkingConfig(chunk_size=self.chunk_size, chunk_overlap=self.chunk_overlap, separators=self.separators)

    def stop_rules(self) -> StopRules:
        return StopRules(
            zero_yield_patience=self.zero_yield_patience,
            low_yield_contexts=self.low_yield_contexts,
            low_yield_rate=self.low_yield_rate,
            max_questions_per_context=self.max_questions_per_context,
        )


class LLMSettings(Section):
    """Which LLM to use (none: offline) and how its calls are made."""

    group = "llm"

    spec: Annotated[
        str | None,
        Field(
            description="LangChain model spec (openai:gpt-4o-mini, ollama:llama3.1, ...), or the model's name on "
            "--llm-base-url"
        ),
        Opt(keyword="llm", metavar="SPEC"),
    ] = None
    base_url: Annotated[
        str | None,
        Field(description="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"),
        Opt(keyword="llm_base_url", metavar="URL"),
    ] = None
    max_concurrency: Annotated[
        int,
        Field(ge=1, description="LLM calls in flight at most; halved on a 429, raised again on success"),
        Opt(keyword="llm_concurrency"),
    ] = _RUNTIME.max_concurrency
    fixed_concurrency: Annotated[
        bool,
        Field(description="keep --llm-concurrency fixed (no adaptive cut on 429s)"),
        Opt(keyword="llm_fixed_concurrency"),
    ] = not _RUNTIME.adaptive
    timeout_s: Annotated[
        float, Field(gt=0, description="seconds per LLM call"), Opt(keyword="llm_timeout_s", flag="--llm-timeout")
    ] = _RUNTIME.timeout_s
    requests_per_second: Annotated[
        float | None, Field(gt=0, description="LLM requests per second at most"), Opt(keyword="llm_rps")
    ] = _RUNTIME.requests_per_second
    tokens_per_minute: Annotated[
        float | None,
        Field(gt=0, description="LLM prompt tokens per minute at most (estimated before sending)"),
        Opt(keyword="llm_tpm"),
    ] = _RUNTIME.tokens_per_minute
    max_retries: Annotated[int, Field(ge=0, description="retries of a failed LLM call"), Opt(keyword="llm_retries")] = (
        _RUNTIME.max_retries
    )
    backoff_base_s: Annotated[
        float,
        Field(ge=0, description="first retry delay in seconds, doubled each retry, jittered"),
        Opt(keyword="llm_backoff_s", flag="--llm-backoff"),
    ] = _RUNTIME.backoff_base_s
    temperature: Annotated[
        float, Field(ge=0, description="sampling temperature of every LLM call"), Opt(keyword="llm_temperature")
    ] = _RUNTIME.temperature
    structured_output: Annotated[
        StructuredOutput,
        Field(
            description="JSON replies: the provider's native schema parameter, falling back to the schema in the "
            "prompt if the server rejects it (auto), always native, or always in the prompt"
        ),
        Opt(keyword="llm_structured_output"),
    ] = _RUNTIME.structured_output
    use_cache: Annotated[
        bool,
        Field(description="read and write the LLM reply cache (a re-run repeats no paid call)"),
        Opt(flag="--cache"),
    ] = True
    cache_dir: Annotated[
        str | None,
        Field(description="keep the LLM cache here instead of in the run directory"),
        Opt(env=CACHE_DIR_ENV, metavar="DIR"),
    ] = None
    prices_file: Annotated[
        str | None,
        Field(description="JSON or TOML price table, model -> [input, output] USD per million tokens"),
        Opt(flag="--prices", env=PRICES_ENV, metavar="FILE"),
    ] = None
    batch: Annotated[
        bool,
        Field(
            description="send LLM calls through the provider's Batch API (OpenAI): about half the price, results "
            "within its completion window; the batch id is kept in the run folder, so running the same command "
            "again resumes a batch instead of paying twice"
        ),
        Opt(keyword="llm_batch"),
    ] = _RUNTIME.batch
    batch_poll_s: Annotated[
        float,
        Field(gt=0, description="first wait between two polls of a batch, growing 1.5 times a poll"),
        Opt(keyword="llm_batch_poll_s", flag="--llm-batch-poll"),
    ] = _RUNTIME.batch_poll_s
    batch_poll_max_s: Annotated[
        float,
        Field(gt=0, description="longest wait between two polls of a batch"),
        Opt(keyword="llm_batch_poll_max_s", flag="--llm-batch-poll-max"),
    ] = _RUNTIME.batch_poll_max_s
    batch_retry: Annotated[
        Literal["online", "batch"],
        Field(description="where a batch line that failed goes: online at once, or into the next batch first"),
        Opt(keyword="llm_batch_retry"),
    ] = _RUNTIME.batch_retry

    @property
    def configured(self) -> bool:
        return bool(self.spec or self.base_url)

    def resolved_cache_dir(self) -> str | None:
        """--cache-dir, else $RAGTEST_CACHE_DIR (a user-level cache shared by runs), else None (the run dir)."""
        return self.cache_dir or None

    def runtime(self) -> LLMConfig:
        """The LLM runtime's settings (`ragtest_core.llm.LLMConfig`) these settings name."""
        return LLMConfig(
            max_concurrency=self.max_concurrency,
            adaptive=not self.fixed_concurrency,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            backoff_base_s=self.backoff_base_s,
            requests_per_second=self.requests_per_second,
            tokens_per_minute=self.tokens_per_minute,
            temperature=self.temperature,
            structured_output=self.structured_output,
            batch=self.batch,
            batch_poll_s=self.batch_poll_s,
            batch_poll_max_s=self.batch_poll_max_s,
            batch_retry=self.batch_retry,
        )


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
        Opt(group="rag", metavar="MODULE:CLASS", default_text="the reference RAG on the test set's store"),
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
            action="append",
            metavar="NAME=VALUE",
            parse=parse_adapter_args,
            render=_rag_args_out,
            default_text="none",
        ),
    ] = Field(default_factory=dict)
    rag_k: Annotated[int, Field(ge=1, description="contexts the reference RAG retrieves"), Opt(group="rag")] = 4
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
            description="the cut-off of hit_rate and ndcg: a gold chunk must be among the first k contexts "
            "retrieved (names such as hit_rate@10 keep their own k)",
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
        Opt(flag="--ray", nargs="?", env=RAY_ADDRESS_ENV, group="distributed", metavar="ADDRESS", parse=_ray_address),
    ] = None
    ray_workers: Annotated[
        int | None,
        Field(ge=1, description="Ray workers a stage uses (each takes one CPU and loads the embedding model once)"),
        Opt(group="distributed", default_text="one per CPU of the cluster"),
    ] = None
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
        Opt(group="testset", metavar="FILE", default_text="generate one"),
    ] = None

    @field_validator("metrics", mode="before")
    @classmethod
    def _metric_names(cls, value: Any) -> Any:
        return parse_metric_list(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _repeats_need_the_llm_judge(self) -> RunConfig:
        if self.repeats > 1 and self.resolved_judge() != "llm":
            raise ValueError("--repeats needs the LLM judge (--llm SPEC or --llm-base-url URL); the local judge "
                             "gives the same score every time")  # fmt: skip
        return self

    def resolved_judge(self) -> str:
        """'llm' when an LLM is configured and the judge is 'auto', else the judge asked for ('local' offline)."""
        if self.judge == "auto":
            return "llm" if self.llm.configured else "local"
        return self.judge

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
