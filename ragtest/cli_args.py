"""The command line's flags. Run settings come from their declarations in `ragtest.config` (one flag per setting,
its help and default from the field); the flags here are a command's own: where files go, gates, output style."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ragtest.cli_compare import add_compare_parser
from ragtest.cli_review import add_review_parser
from ragtest.config import RunConfig
from ragtest.config.scope import COMMAND_GROUPS, GROUPS, check_given, refusal
from ragtest.outputs import COLUMN_STYLES
from ragtest.refresh.command import add_refresh_parser
from ragtest.settings import Setting, build_config, iter_settings, members

DESCRIPTION = """\
ragtest builds a test set of questions from your documents (a Wikipedia topic or local files), asks your RAG
system every question, scores the answers and retrieved contexts (faithfulness, answer relevancy, context
precision and recall, retrieval hit rate, ...) with confidence intervals, and writes a report. Offline by
default: without --llm, an extractive question writer and a local judge are used and nothing leaves the machine.

  ragtest run --topic "Brown bear" --offline --wiki-cache pages/ --size 20 --out runs/bear
  ragtest run --source docs/ --llm openai:gpt-4o-mini --rag mypkg.rag:MyRAG --out runs/docs
  ragtest compare runs/v1 runs/v2 --fail-if "faithfulness<-0.02"

Every command takes --help. Exit codes: 0 done, 1 a gate failed or every row failed, 2 a usage or input error or a
test set short of --size (written, marked partial), 130 interrupted (run the same command again to resume)."""


def add_settings(parser: argparse.ArgumentParser, groups: Sequence[str], root: type[BaseModel] = RunConfig) -> None:
    """One flag per declared setting of `groups`: its dest is the `make_config` keyword, and it is absent from the
    parsed namespace unless given (defaults come from the declaration, not from argparse)."""
    settings = [setting for setting in iter_settings(root) if setting.opt.cli]
    for group in groups:
        if members := [setting for setting in settings if setting.group == group]:
            arguments = parser.add_argument_group(GROUPS.get(group, group))
            for setting in members:
                arguments.add_argument(setting.flag, **_argument(setting))


def _argument(setting: Setting) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"dest": setting.keyword, "default": argparse.SUPPRESS, "help": setting.help()}
    if setting.is_bool:
        kwargs["action"] = argparse.BooleanOptionalAction
        return kwargs
    kwargs["metavar"] = setting.opt.metavar or _metavar(setting)
    if setting.opt.nargs:
        kwargs["nargs"] = setting.opt.nargs
    if setting.opt.action:
        kwargs["action"] = setting.opt.action
    if setting.choices is not None:
        kwargs["choices"] = setting.choices
    elif setting.opt.parse is None:
        kwargs["type"] = _scalar_type(setting)
    return kwargs


def _metavar(setting: Setting) -> str | None:
    names = {int: "N", float: "SECONDS" if setting.name.endswith("_s") else "X"}
    return None if setting.choices is not None else names.get(_scalar_type(setting), setting.keyword.upper())


def _scalar_type(setting: Setting) -> Any:
    """int or float for numeric settings (str otherwise): argparse then names the flag when a value is not one."""
    return next((kind for kind in (int, float) if kind in members(setting.annotation)), str)


def config_from_args(args: argparse.Namespace, root: type[BaseModel] = RunConfig) -> Any:
    """The run settings the command line gave (each read as its declaration says); the rest keep their defaults.
    A setting given that the command would not use (`run --testset T --chunk-size 300`) is a RagtestError naming it
    and what would use it (`ragtest.config.scope`)."""
    given = vars(args)
    command = str(getattr(args, "command", None) or "run")
    groups = COMMAND_GROUPS.get(command)  # a command's own flag may share a setting's name (meta-eval's --seed)
    values = {}
    for setting in iter_settings(root):
        if setting.keyword in given and (groups is None or setting.group in groups):
            value = given[setting.keyword]
            values[setting.keyword] = setting.opt.parse(value) if setting.opt.parse else value
    check_given(list(values), command, root)
    return build_config(root, values)


class RagtestParser(argparse.ArgumentParser):
    """argparse, with a flag that is a setting of another command refused by name: what it is and what uses it."""

    settings_root: type[BaseModel] = RunConfig

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(unrecognized(extras, str(getattr(parsed, "command", "")), self.settings_root))
        return parsed


def unrecognized(words: Sequence[str], command: str, root: type[BaseModel] = RunConfig) -> str:
    """argparse's "unrecognized arguments", where a word is a setting's flag: why the command does not take it."""
    by_flag: dict[str, Setting] = {}
    for setting in iter_settings(root):
        if setting.opt.cli:
            by_flag[setting.flag] = setting
            if setting.is_bool:
                by_flag["--no-" + setting.flag.removeprefix("--")] = setting
    flags = [word.partition("=")[0] for word in words if word.startswith("-")]
    known = [by_flag[flag] for flag in flags if flag in by_flag]
    reasons = [reason for setting in dict.fromkeys(known) if (reason := refusal(setting, command, (), root))]
    if not reasons:
        return "unrecognized arguments: " + " ".join(words)
    others = [flag for flag in flags if flag not in by_flag]
    return "; ".join(reasons + ([f"unrecognized arguments: {' '.join(others)}"] if others else []))


def _quiet_parent() -> argparse.ArgumentParser:
    """`--quiet` accepted after the subcommand too (SUPPRESS keeps the top-level value when it is not given)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars")
    return parent


def _add_output_args(parser: argparse.ArgumentParser, gate: bool = True) -> None:
    parser.add_argument(
        "--columns",
        choices=COLUMN_STYLES,
        default="ragtest",
        help="column names of the files written: ragtest's (question, answer, contexts, ground_truth) or ragas' "
        "(user_input, response, retrieved_contexts, reference) (default: ragtest)",
    )
    if gate:
        parser.add_argument(
            "--fail-under",
            metavar="RULES",
            help='exit 1 when a mean is significantly below a floor, e.g. "faithfulness=0.8,context_recall=0.7": a '
            "rule fails when the upper bound of the mean's 95%% interval is below it (default: no gate)",
        )


def _add_dry_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="estimate the LLM calls, tokens and cost; send nothing and write nothing",
    )


def build_parser(root: type[BaseModel] = RunConfig) -> argparse.ArgumentParser:
    parser = RagtestParser(
        prog="ragtest", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.settings_root = root
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=argparse.ArgumentParser)
    quiet = [_quiet_parent()]

    gen = sub.add_parser("generate", parents=quiet, help="build a test set from a Wikipedia topic or local files")
    gen.add_argument(
        "--output", default="testset.jsonl", help="test set file: .jsonl, .csv or .parquet (default: testset.jsonl)"
    )
    gen.add_argument("--store", metavar="DIR", help="vector store folder (default: 'chroma' beside the output)")
    add_settings(gen, COMMAND_GROUPS["generate"], root)
    _add_dry_run(gen)

    ans = sub.add_parser("answer", parents=quiet, help="run a test set through the RAG under test")
    ans.add_argument("--input", required=True, help="the test set file")
    ans.add_argument("--output", default="answers.jsonl", help="answers file (default: answers.jsonl)")
    ans.add_argument(
        "--store",
        metavar="DIR",
        help="the test set's vector store, for the reference RAG (default: 'chroma' beside the input)",
    )
    add_settings(ans, COMMAND_GROUPS["answer"], root)
    _add_output_args(ans, gate=False)
    _add_dry_run(ans)

    ev = sub.add_parser("evaluate", parents=quiet, help="score a dataset (question, answer, contexts[, ground_truth])")
    ev.add_argument("--input", required=True, help="dataset file (.jsonl, .csv, .parquet; ragas names accepted)")
    ev.add_argument(
        "--output",
        default="scores.jsonl",
        help="scored file; the summary, manifest and report go beside it (default: scores.jsonl)",
    )
    add_settings(ev, COMMAND_GROUPS["evaluate"], root)
    _add_output_args(ev)
    _add_dry_run(ev)

    run = sub.add_parser("run", parents=quiet, help="generate, answer and evaluate into one run directory")
    run.add_argument("--out", default="ragtest-run", help="run directory (default: ragtest-run)")
    add_settings(run, COMMAND_GROUPS["run"], root)
    _add_output_args(run)
    _add_dry_run(run)

    add_compare_parser(sub, quiet)
    add_review_parser(sub, quiet)
    add_settings(add_refresh_parser(sub, quiet), COMMAND_GROUPS["refresh"], root)

    meta = sub.add_parser(
        "meta-eval",
        parents=quiet,
        help="agreement of the metrics with human labels: your own (--labels) or WikiEval's",
        description="How far the judge agrees with human labels. --labels LABELS SCORED: your labels (labels.jsonl "
        "from `ragtest review`) against a scored run: per metric ROC-AUC (yes/no labels) or Spearman (graded), "
        "Cohen's kappa at the metric's threshold, each with a bootstrap interval and n; the confusion table; the rows "
        "where judge and humans disagree most; agreement between labellers. --wikieval FILE: the RAGAS paper's "
        "WikiEval table for the chosen judge.",
    )
    meta.add_argument("scored", nargs="?", help="with --labels: the scored run (a run folder or a scored file)")
    source = meta.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--labels", metavar="FILE", help="human labels, e.g. runs/v1/labels.jsonl (default: none; this or --wikieval)"
    )
    source.add_argument(
        "--wikieval",
        metavar="FILE",
        help="the WikiEval dataset (the RAGAS paper's, explodinggradients/WikiEval on Hugging Face) as JSON Lines: "
        "one row per question with question, answer, ungrounded_answer, poor_answer, context_v1 and context_v2 "
        "(default: none; this or --labels)",
    )
    meta.add_argument(
        "--judge", choices=("local", "llm"), default="local", help="WikiEval: the judge to measure (default: local)"
    )
    meta.add_argument("--limit", type=int, default=None, help="WikiEval: only the first N rows (default: all)")
    meta.add_argument(
        "--export",
        metavar="DIR",
        help="WikiEval: also write its scored rows and its preferences as scored.jsonl + labels.jsonl in DIR, which "
        "--labels reads back to the same agreement (default: none)",
    )
    meta.add_argument("--metrics", metavar="NAMES", help="--labels: only these metrics (default: every labelled one)")
    meta.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals (default: 0)")
    meta.add_argument("--json", action="store_true", help="print the agreement as JSON instead of a table")
    meta.add_argument("--out", default="runs/meta-eval", help="folder for the LLM cache (default: runs/meta-eval)")
    add_settings(meta, COMMAND_GROUPS["meta-eval"], root)
    return parser
