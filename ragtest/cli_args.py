"""The `ragtest` command's flags: the parser of every subcommand, and the run settings its flags name
(`config_from_args`: every flag is a `make_config` option, or in `NOT_CONFIG`)."""

from __future__ import annotations

import argparse
import os

from rag_under_test import parse_adapter_args
from ragtest.api import make_config
from ragtest.cli_compare import add_compare_parser
from ragtest.config import OFFLINE_ENV, GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.outputs import COLUMN_STYLES
from ragtest_core.llm import STRUCTURED_OUTPUT_MODES


def _add_source_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sources")
    group.add_argument(
        "--topic", help='a Wikipedia page title, e.g. "Python (programming language)" (or "Title@revid" for a revision)'
    )
    group.add_argument("--revision", help="the revision id of --topic's page to load (pins the test set's source)")
    group.add_argument("--topics", help="a file of Wikipedia topics, one a line: Title or Title@revid")
    group.add_argument("--source", help="a local file or folder (.txt, .md, .html, .pdf)")
    group.add_argument(
        "--wiki-cache", help="folder of cached pages (Title_with_underscores.txt); also RAGTEST_WIKI_CACHE"
    )
    group.add_argument(
        "--offline",
        action="store_true",
        help="read Wikipedia pages from the cache without trying the network (also RAGTEST_OFFLINE=1)",
    )
    timeout = SourceConfig.wiki_timeout_s
    group.add_argument(
        "--wiki-timeout", type=float, default=timeout, help=f"seconds per Wikipedia request ({timeout:g})"
    )


def _add_generation_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("generation")
    defaults = GenerationConfig()
    group.add_argument("--size", type=int, default=defaults.size, help=f"questions to generate ({defaults.size})")
    group.add_argument("--seed", type=int, default=defaults.seed, help=f"random seed ({defaults.seed})")
    group.add_argument(
        "--k-neighbours",
        type=int,
        default=defaults.k_neighbours,
        help=f"neighbour chunks per root chunk ({defaults.k_neighbours})",
    )
    group.add_argument(
        "--questions-per-context",
        type=int,
        default=defaults.questions_per_context,
        help="questions asked of each context (default: 1 offline, 2 with an LLM writer; more when roots run out)",
    )
    group.add_argument("--chunk-size", type=int, default=defaults.chunk_size)
    group.add_argument("--chunk-overlap", type=int, default=defaults.chunk_overlap)
    group.add_argument(
        "--separators",
        nargs="+",
        metavar="SEP",
        help="where chunks may be cut, tried in order (backslash escapes such as \\n work); "
        f"default {' '.join(repr(s) for s in defaults.separators)}, then ' ' and ''",
    )
    group.add_argument("--max-question-words", type=int, default=defaults.max_question_words)
    group.add_argument(
        "--question-types",
        help="type mix, e.g. simple=0.5,multi_context=0.25,unanswerable=0.25 (types: simple, reasoning, "
        "multi_context, conditional, unanswerable, distracting; the offline writer does simple and multi_context)",
    )
    group.add_argument(
        "--dedup-threshold",
        type=float,
        default=defaults.dedup_threshold,
        help=f"embedding cosine above which two questions are duplicates ({defaults.dedup_threshold})",
    )
    group.add_argument(
        "--max-copied-words",
        type=int,
        default=defaults.max_copied_words,
        help=f"longest run of words a question may copy from its context ({defaults.max_copied_words})",
    )
    group.add_argument(
        "--critic",
        choices=("auto", "llm", "offline"),
        default=defaults.critic,
        help="groundedness check: the LLM critic or the offline support check (auto: LLM when configured)",
    )
    group.add_argument(
        "--strict-types", action="store_true", help="fail instead of filling a type's shortfall with other types"
    )


def _add_llm_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("LLM (optional: without one, the offline writer and local judge are used)")
    defaults = LLMSettings()
    group.add_argument("--llm", help="LangChain model spec (openai:gpt-4o-mini, ollama:llama3.1, ...) or a base URL")
    group.add_argument("--llm-base-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    group.add_argument(
        "--llm-concurrency",
        type=int,
        default=defaults.max_concurrency,
        help=f"LLM calls in flight at most ({defaults.max_concurrency}); halved on a 429, raised again on success",
    )
    group.add_argument(
        "--llm-fixed-concurrency", action="store_true", help="keep --llm-concurrency fixed (no adaptive cut on 429s)"
    )
    group.add_argument(
        "--llm-timeout", type=float, default=defaults.timeout_s, help=f"seconds per LLM call ({defaults.timeout_s:g})"
    )
    group.add_argument("--llm-rps", type=float, default=None, help="LLM requests per second at most")
    group.add_argument(
        "--llm-tpm", type=float, default=None, help="LLM prompt tokens per minute at most (estimated before sending)"
    )
    group.add_argument(
        "--llm-retries",
        type=int,
        default=defaults.max_retries,
        help=f"retries of a failed LLM call ({defaults.max_retries})",
    )
    group.add_argument(
        "--llm-backoff",
        type=float,
        default=defaults.backoff_base_s,
        help=f"first retry delay in seconds, doubled each retry, jittered ({defaults.backoff_base_s:g})",
    )
    group.add_argument(
        "--llm-structured-output",
        choices=STRUCTURED_OUTPUT_MODES,
        default=defaults.structured_output,
        help="JSON replies: the provider's native schema parameter where it has one, falling back to the schema in "
        "the prompt if the server rejects it (auto), always native, or always in the prompt",
    )
    group.add_argument("--no-cache", action="store_true", help="do not read or write the LLM reply cache")
    group.add_argument(
        "--cache-dir", help="keep the LLM cache here instead of in the run directory (also RAGTEST_CACHE_DIR)"
    )
    group.add_argument(
        "--prices",
        help="JSON or TOML price table, model -> [input, output] USD per million tokens (also RAGTEST_PRICES)",
    )
    group.add_argument(
        "--dry-run", action="store_true", help="estimate the LLM calls, tokens and cost, send nothing and write nothing"
    )


def _add_rag_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("RAG under test")
    defaults = RunConfig()
    group.add_argument("--rag", help="your adapter, as module.path:ClassOrFactory (default: the reference RAG)")
    group.add_argument(
        "--rag-arg",
        action="append",
        default=None,
        metavar="NAME=VALUE",
        help="an argument for the --rag class or factory, repeatable, e.g. --rag rag_under_test:HTTPAdapter "
        "--rag-arg url=http://127.0.0.1:8000/rag (JSON values such as 30 or true are read as such)",
    )
    group.add_argument(
        "--rag-k", type=int, default=defaults.rag_k, help=f"contexts the reference RAG retrieves ({defaults.rag_k})"
    )
    group.add_argument(
        "--rag-concurrency",
        type=int,
        default=defaults.rag_concurrency,
        help="questions asked at once (default: 4 for an async adapter such as the reference RAG, 1 for a "
        "synchronous one, whose answer() runs in worker threads and may not be thread-safe; raise it when it is)",
    )
    group.add_argument(
        "--rag-timeout",
        type=float,
        default=defaults.rag_timeout_s,
        help=f"seconds per question ({defaults.rag_timeout_s:g})",
    )


def _add_eval_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("evaluation")
    group.add_argument("--metrics", help="comma-separated metric names (default: the five RAGAS metrics)")
    group.add_argument(
        "--judge",
        choices=("auto", "local", "llm"),
        default=RunConfig.judge,
        help="auto = the LLM judge when --llm is given, else the local judge",
    )


def _add_output_args(parser: argparse.ArgumentParser, gate: bool = True) -> None:
    parser.add_argument(
        "--columns",
        choices=COLUMN_STYLES,
        default="ragtest",
        help="column names of the files written: ragtest's (question, answer, contexts, ground_truth) or ragas' "
        "(user_input, response, retrieved_contexts, reference)",
    )
    if gate:
        parser.add_argument(
            "--fail-under",
            help='exit 1 when a mean is significantly below a floor, e.g. "faithfulness=0.8,context_recall=0.7": a '
            "rule fails when the upper bound of the mean's 95%% interval is below it",
        )


def _quiet_parent() -> argparse.ArgumentParser:
    """`--quiet` accepted after the subcommand too (SUPPRESS keeps the top-level value when it is not given)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars")
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragtest", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True)
    quiet = [_quiet_parent()]

    gen = sub.add_parser("generate", parents=quiet, help="build a test set from a Wikipedia topic or local files")
    _add_source_args(gen)
    _add_generation_args(gen)
    _add_llm_args(gen)
    gen.add_argument("--output", default="testset.jsonl", help="test set file (.jsonl, .csv, .parquet)")
    gen.add_argument("--store", help="vector store folder (default: 'chroma' beside the output)")
    gen.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")

    ans = sub.add_parser("answer", parents=quiet, help="run a test set through the RAG under test")
    ans.add_argument("--input", required=True, help="test set file")
    ans.add_argument("--output", default="answers.jsonl")
    ans.add_argument(
        "--store", help="the test set's vector store, for the reference RAG (default: 'chroma' beside the input)"
    )
    ans.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")
    _add_rag_args(ans)
    _add_llm_args(ans)
    _add_output_args(ans, gate=False)

    ev = sub.add_parser("evaluate", parents=quiet, help="score a dataset (question, answer, contexts[, ground_truth])")
    ev.add_argument("--input", required=True, help="dataset file (.jsonl, .csv, .parquet; ragas names accepted)")
    ev.add_argument("--output", default="scores.jsonl")
    _add_eval_args(ev)
    _add_llm_args(ev)
    _add_output_args(ev)

    run = sub.add_parser("run", parents=quiet, help="generate, answer and evaluate into one run directory")
    _add_source_args(run)
    _add_generation_args(run)
    _add_rag_args(run)
    _add_eval_args(run)
    _add_llm_args(run)
    run.add_argument("--out", default="ragtest-run", help="run directory (default ragtest-run)")
    run.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")
    _add_output_args(run)

    add_compare_parser(sub, quiet)

    meta = sub.add_parser("meta-eval", parents=quiet, help="agreement of the metrics with human labels (WikiEval)")
    meta.add_argument("--wikieval", required=True, help="WikiEval JSONL, e.g. ../shared/data/wikieval/wikieval.jsonl")
    meta.add_argument("--judge", choices=("local", "llm"), default="local", help="the judge to measure (local)")
    meta.add_argument("--limit", type=int, default=None, help="only the first N rows")
    meta.add_argument("--json", action="store_true", help="print the agreement as JSON instead of a table")
    meta.add_argument("--out", default="runs/meta-eval", help="folder for the LLM cache (runs/meta-eval)")
    _add_llm_args(meta)
    return parser


#: CLI flag (argparse dest) -> make_config keyword. Every option of generate/answer/evaluate/run is here or in
#: NOT_CONFIG (tests/e2e/test_cli_small.py checks it).
CONFIG_OPTIONS: dict[str, str] = {
    "topic": "topic",
    "source": "source",
    "revision": "revision",
    "topics": "topics_file",
    "wiki_cache": "wiki_cache",
    "wiki_timeout": "wiki_timeout_s",
    "size": "size",
    "seed": "seed",
    "k_neighbours": "k_neighbours",
    "questions_per_context": "questions_per_context",
    "chunk_size": "chunk_size",
    "chunk_overlap": "chunk_overlap",
    "max_question_words": "max_question_words",
    "question_types": "question_types",
    "dedup_threshold": "dedup_threshold",
    "max_copied_words": "max_copied_words",
    "critic": "critic",
    "strict_types": "strict_types",
    "llm": "llm",
    "llm_base_url": "llm_base_url",
    "llm_concurrency": "llm_concurrency",
    "llm_fixed_concurrency": "llm_fixed_concurrency",
    "llm_timeout": "llm_timeout_s",
    "llm_rps": "llm_rps",
    "llm_tpm": "llm_tpm",
    "llm_retries": "llm_retries",
    "llm_backoff": "llm_backoff_s",
    "llm_structured_output": "llm_structured_output",
    "cache_dir": "cache_dir",
    "prices": "prices_file",
    "store_url": "store_url",
    "rag": "rag",
    "rag_arg": "rag_args",
    "rag_k": "rag_k",
    "rag_concurrency": "rag_concurrency",
    "rag_timeout": "rag_timeout_s",
    "judge": "judge",
}
#: Flags that are not run settings: where files go, how the command reports, gates; `offline`, `no_cache` and
#: `metrics` reach make_config in their own way (offline, use_cache, metrics).
NOT_CONFIG = (
    "input",
    "output",
    "out",
    "store",
    "quiet",
    "dry_run",
    "columns",
    "fail_under",
    "command",
    "offline",
    "no_cache",
    "metrics",
    "separators",
)


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """A RunConfig from whichever flags the subcommand has (`make_config` fills in the rest)."""
    given = {key: value for key, value in vars(args).items() if value is not None}
    offline = bool(given.get("offline")) or os.environ.get(OFFLINE_ENV, "") not in ("", "0")
    options = {option: given[flag] for flag, option in CONFIG_OPTIONS.items() if flag in given}
    if "rag_args" in options:
        options["rag_args"] = parse_adapter_args(options["rag_args"])
    if "separators" in given:
        options["separators"] = tuple(decode_separator(sep) for sep in given["separators"])
    config = make_config(
        **options,
        offline=offline,
        use_cache=not given.get("no_cache", False),
        metrics=parse_metric_list(given.get("metrics")),
    )
    return config


def decode_separator(text: str) -> str:
    """A separator as typed on the command line: backslash escapes (\\n, \\t, \\\\) decoded."""
    return text.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def parse_metric_list(text: str | None) -> list[str] | None:
    """`a, b,c` -> ["a", "b", "c"]; None or empty -> None (the default metrics)."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    return names or None
