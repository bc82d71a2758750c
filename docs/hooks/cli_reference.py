"""The command-line reference as Markdown, rendered from what the command line is built from: the parser
(`ragtest.cli_args.build_parser`) and the settings declarations it derives its flags from (`ragtest.config`,
`ragtest.settings`). Every command with its own arguments, and every setting with its flag, `make_config` keyword,
default, environment variable and help text. The docs site's hook (`reference_pages.py`, beside this file) writes it
into the CLI page at build time, so the page cannot drift from the code: a new setting is on it the next build.
Docs-build tooling, not part of the ragtest package.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from ragtest.cli_args import DESCRIPTION, build_parser
from ragtest.config import RunConfig
from ragtest.config.scope import COMMAND_GROUPS, GROUPS
from ragtest.markdown_text import markdown_table
from ragtest.settings import Setting, iter_settings
from ragtest_core.embedding_cache import CACHE_SWITCH_ENV
from ragtest_core.embedding_device import BATCH_ENV, DEVICE_ENV
from ragtest_core.embeddings import BACKEND_ENV, DTYPE_ENV
from ragtest_core.onnx_embedder import THREADS_ENV

#: Environment variables the runtime reads that are not settings (no flag, no `make_config` keyword).
RUNTIME_ENVIRONMENT: tuple[tuple[str, str], ...] = (
    (
        DEVICE_ENV,
        "where embeddings run: auto (default: a GPU when torch sees one, CUDA then MPS, else the CPU), cpu (as before "
        "GPUs were used), cuda or mps (an error when torch sees no such GPU)",
    ),
    (
        DTYPE_ENV,
        "embedding precision: float32 (the CPU's default; the same scores on every machine), float16 (a GPU's "
        "default), bfloat16, or auto (float16 on a GPU; bfloat16 on a CPU with bfloat16 matrix units)",
    ),
    (BACKEND_ENV, "embedding backend: auto (default: ONNX Runtime for float32 on the CPU when it can), onnx, or torch"),
    (
        BATCH_ENV,
        "texts per forward pass of the torch embedding backend (default: 32 on the CPU, 512 on CUDA, 128 on MPS)",
    ),
    (THREADS_ENV, "ONNX Runtime threads (default: the usable cores, at most 4)"),
    (CACHE_SWITCH_ENV, "set to off, chunk vectors are not cached by content (default: cached)"),
)


@dataclass(frozen=True)
class Command:
    """One subcommand as the reference shows it."""

    name: str
    summary: str
    parser: argparse.ArgumentParser


def render_cli_reference(root: type[BaseModel] | None = None) -> str:
    """The whole reference: the commands, the settings by group, and the environment variables. `root`: the
    settings model the command line is built from (default: `RunConfig`, read when called)."""
    root = root or RunConfig
    parser = build_parser(root)
    settings = list(iter_settings(root))
    commands = list(subcommands(parser))
    groups = setting_groups(settings)
    flags = {setting.keyword: setting.flag for setting in settings}
    titles = {group_title(g) for g in groups}
    shown = {flag: _usage(a) for c in commands for a in setting_actions(c.parser, titles) for flag in a.option_strings}
    parts = [
        "## Commands",
        _description(DESCRIPTION),
        markdown_table(
            ("command", "what it does"), ([f"[`{c.name}`](#{anchor(c.name)})", c.summary] for c in commands)
        ),
        _own_arguments("Options of every command", parser, titles),
        *(_command(command, common_options(parser), titles) for command in commands),
        "## Settings",
        "Each setting is declared once (`ragtest/config/`); its flag, its `make_config` keyword, its default and its "
        "environment variable below are read from that declaration. A yes/no setting takes `--X` and `--no-X`.",
        *(_group(group, [s for s in settings if s.group == group], flags, shown) for group in groups),
        _environment(settings),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def subcommands(parser: argparse.ArgumentParser) -> Iterator[Command]:
    """The parser's subcommands in the order `ragtest --help` lists them."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield Command(name, summaries.get(name, ""), sub)


def common_options(parser: argparse.ArgumentParser) -> frozenset[str]:
    """The top-level options every command also takes (`--quiet`)."""
    return frozenset(flag for action in parser._actions for flag in action.option_strings) - {"-h", "--help"}


def anchor(command: str) -> str:
    return f"ragtest-{command}"


def group_anchor(group: str) -> str:
    return f"settings-{group}"


def setting_groups(settings: Iterable[Setting]) -> list[str]:
    """The settings' groups: the CLI's groups in their order, then any other group a setting declares."""
    declared = [str(setting.group) for setting in settings if setting.group]
    return [*GROUPS, *dict.fromkeys(group for group in declared if group not in GROUPS)]


def group_title(group: str) -> str:
    return GROUPS.get(group, group)


def setting_actions(parser: argparse.ArgumentParser, titles: set[str]) -> Iterator[argparse.Action]:
    """The parser's arguments that are settings: those in the argument groups titled like a settings group."""
    for action_group in parser._action_groups:
        if action_group.title in titles:
            yield from action_group._group_actions


def _command(command: Command, common: frozenset[str], titles: set[str]) -> str:
    taken = COMMAND_GROUPS.get(command.name, ())
    positionals = [_synopsis_word(a) for a in command.parser._actions if not a.option_strings]
    lines = [
        f"### ragtest {command.name} {{#{anchor(command.name)}}}",
        _escape(_sentence((command.parser.description or command.summary).replace("%%", "%"))),
        "```text\nragtest " + " ".join([command.name, *positionals, "[options]"]) + "\n```",
        _own_arguments("Arguments", command.parser, titles, skip=common),
    ]
    if taken:
        links = ", ".join(f"[{_heading(group_title(g))}](#{group_anchor(g)})" for g in taken)
        lines.append(f"Settings: {links}.")
    return "\n\n".join(line for line in lines if line)


def _description(text: str) -> str:
    """`ragtest --help`'s description: its prose as paragraphs, its indented example lines as a code block."""
    parts = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if all(line.startswith("  ") for line in lines):
            parts.append("```bash\n" + "\n".join(line.strip() for line in lines) + "\n```")
        else:
            parts.append(_escape(" ".join(line.strip() for line in lines)))
    return "\n\n".join(parts)


def _own_arguments(
    title: str, parser: argparse.ArgumentParser, setting_titles: set[str], skip: frozenset[str] = frozenset()
) -> str:
    """The parser's arguments that are not settings (those are in argument groups titled `setting_titles`):
    positionals and the command's own options, but `skip`'s."""
    rows = []
    for action_group in parser._action_groups:
        if action_group.title in setting_titles:
            continue
        for action in action_group._group_actions:
            listed_elsewhere = isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
            if listed_elsewhere or skip.intersection(action.option_strings):
                continue
            help_text, default = _split_default(action)
            rows.append([f"`{_usage(action)}`", _default_cell(default), _escape(help_text)])
    if not rows:
        return ""
    return f"**{title}**\n\n" + markdown_table(("argument", "default", "description"), rows)


def _group(group: str, settings: list[Setting], flags: dict[str, str], shown: dict[str, str]) -> str:
    """A settings group's table. `flags`: every setting's flag by keyword; `shown`: each flag as `--help` shows it."""
    if not settings:
        return ""
    heading, _, note = group_title(group).partition(" (")
    commands = [name for name, groups in COMMAND_GROUPS.items() if group in groups]
    lines = [
        f"### {heading[:1].upper()}{heading[1:]} {{#{group_anchor(group)}}}",
        _sentence(note.rstrip(")")),
        "Taken by " + ", ".join(f"[`{c}`](#{anchor(c)})" for c in commands) + ".",
        markdown_table(
            ("flag", "keyword", "default", "environment", "description"),
            (
                [
                    f"`{shown.get(s.flag, s.flag) if s.opt.cli else '(no flag: make_config only)'}`",
                    f"`{s.keyword}`",
                    _default_cell(s.default_shown(), literal=_literal_default(s)),
                    f"`{s.opt.env}`" if s.opt.env else "",
                    _escape(" ".join(filter(None, [_sentence(s.info.description or ""), _scope(s, flags)]))),
                ]
                for s in settings
            ),
        ),
    ]
    return "\n\n".join(line for line in lines if line)


def _environment(settings: Iterable[Setting]) -> str:
    declared = [
        [f"`{s.opt.env}`", f"`{s.flag}`", _escape(_sentence(s.info.description or ""))] for s in settings if s.opt.env
    ]
    runtime = [[f"`{name}`", "", _escape(_sentence(text))] for name, text in RUNTIME_ENVIRONMENT]
    return "\n\n".join(
        [
            "## Environment variables",
            "A setting's environment variable is read when the setting is not given on the command line or to "
            "`make_config`; an explicit value wins. The embedding runtime's own knobs are environment variables "
            "only.",
            markdown_table(("variable", "setting", "description"), [*declared, *runtime]),
        ]
    )


def _scope(setting: Setting, flags: dict[str, str]) -> str:
    """Where the setting applies, as its declaration narrows it (`ragtest.config.scope`): not with another setting,
    only with another (`flags`: each setting's flag by keyword), or making `run` skip a stage."""
    notes = []
    if unless := getattr(setting.opt, "unless", None):
        notes.append(f"Not used when `{flags.get(unless, unless)}` is given.")
    if needs := getattr(setting.opt, "needs", None):
        notes.append(f"Used only with `{flags.get(needs, needs)}`.")
    if skips := getattr(setting.opt, "skips", None):
        notes.append(f"Given, `run` skips `{skips}`.")
    return " ".join(notes)


def _usage(action: argparse.Action) -> str:
    """An argument as `--help` shows it (argparse's own formatting): the flag(s) and its value, e.g. `--port PORT`."""
    if not action.option_strings:
        return _synopsis_word(action)
    repeat = " (repeatable)" if isinstance(action, argparse._AppendAction) else ""
    return argparse.HelpFormatter("ragtest")._format_action_invocation(action) + repeat


def _synopsis_word(action: argparse.Action) -> str:
    word = str(action.metavar or action.dest).upper()
    return f"[{word}]" if action.nargs == "?" else word


def _split_default(action: argparse.Action) -> tuple[str, str]:
    """(help text, default): the default as the help states it ("... (default: X)"), else from the action."""
    text = (action.help or "").replace("%%", "%").strip()
    head, marker, tail = text.rpartition("(default: ")
    if marker and tail.endswith(")"):
        return _sentence(head.strip()), tail[:-1]
    if action.required or (not action.option_strings and action.nargs != "?"):
        return _sentence(text), "required"
    if action.nargs == 0:
        return _sentence(text), "off"
    return _sentence(text), "" if action.default in (None, argparse.SUPPRESS) else str(action.default)


def _literal_default(setting: Setting) -> bool:
    """Whether the default shown is a value (in code) rather than words."""
    return setting.opt.default_text is None and setting.default is not None and not setting.is_bool


def _default_cell(text: str, literal: bool | None = None) -> str:
    """A default as a table cell: a value in code (`512`, `auto`), words as words ("every tier")."""
    if not text:
        return ""
    if text == "required":
        return "*required*"
    if literal is None:
        literal = " " not in text and text not in ("none", "all", "off", "on")
    return f"`{text}`" if literal else _escape(text)


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def _heading(title: str) -> str:
    heading = title.partition(" (")[0]
    return heading[:1].upper() + heading[1:]


def _escape(text: str) -> str:
    """Text safe in a Markdown table cell: pipes escaped, angle brackets as entities."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
