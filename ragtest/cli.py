"""The `ragtest` command: generate, answer, evaluate, and run (all three into one run directory)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from evaluation.meta_eval import format_table, run_wikieval
from ragtest import console, steps
from ragtest.api import make_config
from ragtest.config import OFFLINE_ENV, GenerationConfig, LLMSettings, RunConfig, SourceConfig
from ragtest.manifest import stage_manifest_path, write_manifest
from ragtest.run_state import STORE_DIR, open_run
from ragtest_core.datasets import read_rows
from ragtest_core.errors import RagtestError
from ragtest_core.llm import STRUCTURED_OUTPUT_MODES

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _add_source_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sources")
    group.add_argument("--topic", help='a Wikipedia page title, e.g. "Python (programming language)"')
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
    group.add_argument("--questions-per-context", type=int, default=defaults.questions_per_context)
    group.add_argument("--chunk-size", type=int, default=defaults.chunk_size)
    group.add_argument("--chunk-overlap", type=int, default=defaults.chunk_overlap)
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
        "--rag-k", type=int, default=defaults.rag_k, help=f"contexts the reference RAG retrieves ({defaults.rag_k})"
    )
    group.add_argument(
        "--rag-concurrency",
        type=int,
        default=defaults.rag_concurrency,
        help=f"questions asked at once ({defaults.rag_concurrency})",
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragtest", description=__doc__)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True)

    gen = sub.add_parser("generate", help="build a test set from a Wikipedia topic or local files")
    _add_source_args(gen)
    _add_generation_args(gen)
    _add_llm_args(gen)
    gen.add_argument("--output", default="testset.jsonl", help="test set file (.jsonl, .csv, .parquet)")
    gen.add_argument("--store", help="vector store folder (default: 'chroma' beside the output)")
    gen.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")

    ans = sub.add_parser("answer", help="run a test set through the RAG under test")
    ans.add_argument("--input", required=True, help="test set file")
    ans.add_argument("--output", default="answers.jsonl")
    ans.add_argument(
        "--store", help="the test set's vector store, for the reference RAG (default: 'chroma' beside the input)"
    )
    ans.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")
    _add_rag_args(ans)
    _add_llm_args(ans)

    ev = sub.add_parser("evaluate", help="score a dataset (question, answer, contexts[, ground_truth])")
    ev.add_argument("--input", required=True, help="dataset file (.jsonl, .csv, .parquet; ragas names accepted)")
    ev.add_argument("--output", default="scores.jsonl")
    _add_eval_args(ev)
    _add_llm_args(ev)

    run = sub.add_parser("run", help="generate, answer and evaluate into one run directory")
    _add_source_args(run)
    _add_generation_args(run)
    _add_rag_args(run)
    _add_eval_args(run)
    _add_llm_args(run)
    run.add_argument("--out", default="ragtest-run", help="run directory (default ragtest-run)")
    run.add_argument("--store-url", help="a Chroma server URL instead of an embedded store")

    meta = sub.add_parser("meta-eval", help="agreement of the metrics with human labels (WikiEval)")
    meta.add_argument("--wikieval", required=True, help="WikiEval JSONL, e.g. ../shared/data/wikieval/wikieval.jsonl")
    meta.add_argument("--judge", choices=("local", "llm"), default="local", help="the judge to measure (local)")
    meta.add_argument("--limit", type=int, default=None, help="only the first N rows")
    meta.add_argument("--json", action="store_true", help="print the agreement as JSON instead of a table")
    meta.add_argument("--out", default="runs/meta-eval", help="folder for the LLM cache (runs/meta-eval)")
    _add_llm_args(meta)
    return parser


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """A RunConfig from whichever flags the subcommand has (`make_config` fills in the rest)."""
    given = {key: value for key, value in vars(args).items() if value is not None}
    offline = bool(given.get("offline")) or os.environ.get(OFFLINE_ENV, "") not in ("", "0")
    names = {
        "topic": "topic",
        "source": "source",
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
        "rag_k": "rag_k",
        "rag_concurrency": "rag_concurrency",
        "rag_timeout": "rag_timeout_s",
        "judge": "judge",
    }
    options = {option: given[flag] for flag, option in names.items() if flag in given}
    config = make_config(
        **options,
        offline=offline,
        use_cache=not given.get("no_cache", False),
        metrics=parse_metric_list(given.get("metrics")),
    )
    if config.generation.size < 1:
        raise RagtestError("--size must be at least 1")
    return config


def parse_metric_list(text: str | None) -> list[str] | None:
    """`a, b,c` -> ["a", "b", "c"]; None or empty -> None (the default metrics)."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    return names or None


def _command(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    progress = not args.quiet
    if args.command == "meta-eval":
        return _meta_eval(args, config)
    if args.dry_run:
        print(console.dry_run_report(config, args.command, getattr(args, "input", None)))
        return 0
    if args.command == "run":
        state = steps.run(config, args.out, show_progress=progress)
        print(console.describe_run(state))
        return 0
    if args.command == "generate":
        output = Path(args.output)
        state = open_run(config, output.parent, show_progress=progress)
        store_dir = Path(args.store) if args.store else output.parent / STORE_DIR
        samples = steps.generate_testset(state, output=output, store_dir=store_dir)
        print(f"wrote {len(samples)} questions to {output}")
        write_manifest(state, stage_manifest_path(output))
    elif args.command == "answer":
        source = Path(args.input)
        output = Path(args.output)
        state = open_run(config, output.parent, show_progress=progress)
        store_dir = Path(args.store) if args.store else source.parent / STORE_DIR
        rows = steps.answer_testset(state, read_rows(source), output=output, store_dir=store_dir)
        errors = sum(1 for row in rows if row.get("answer_error"))
        print(f"wrote {len(rows)} answers to {output} ({errors} with errors)")
        write_manifest(state, stage_manifest_path(output))
    elif args.command == "evaluate":
        output = Path(args.output)
        state = open_run(config, output.parent, show_progress=progress)
        result = steps.evaluate_file(state, Path(args.input), output)
        print(f"wrote {len(result.frame)} scored rows to {output}")
        write_manifest(state, stage_manifest_path(output))
        print(console.format_summary(result.summary))
    if state.llm is not None:
        print(state.llm.usage.report())
    return 0


def _meta_eval(args: argparse.Namespace, config: RunConfig) -> int:
    """WikiEval agreement of the chosen judge, as the RAGAS paper's table (or JSON)."""
    if args.judge == "llm" and not config.llm.configured:
        raise RagtestError("--judge llm needs --llm SPEC or --llm-base-url URL")
    state = open_run(config, args.out, show_progress=not args.quiet)
    table = run_wikieval(args.wikieval, judge=args.judge, llm=state.llm, limit=args.limit, show_progress=not args.quiet)
    print(json.dumps(table.as_dict(), indent=2) if args.json else format_table(table))
    if state.llm is not None:
        print(state.llm.usage.report())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _command(args)
    except RagtestError as exc:
        print(f"ragtest: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ragtest: interrupted; re-run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
