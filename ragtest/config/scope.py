"""Which settings a command uses, derived from the declarations: the settings of the command's groups
(`COMMAND_GROUPS`; `run` chains the stage commands and takes their groups plus its own), narrowed by each setting's
`Opt.skips`, `Opt.unless` and `Opt.needs` (`ragtest.settings.Opt`). A setting given where it does not apply is
refused, naming it and what would use it (`check_given`); the manifest records only the settings that took effect
(`applied`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from pydantic import BaseModel

from ragtest.config.run import RunConfig
from ragtest.settings import Setting, iter_settings, settings_by_keyword
from ragtest_core.errors import RagtestError

#: CLI group titles, by the group name settings declare.
GROUPS: dict[str, str] = {
    "sources": "sources",
    "generation": "test-set generation",
    "rag": "RAG under test",
    "evaluation": "evaluation",
    "store": "vector store",
    "embeddings": "embeddings",
    "llm": "LLM (optional: without one, the offline writer and the local judge are used)",
    "distributed": "beyond one machine",
    "testset": "an existing test set",
}
#: The setting groups each command takes.
COMMAND_GROUPS: dict[str, tuple[str, ...]] = {
    "generate": ("sources", "generation", "store", "embeddings", "llm", "distributed"),
    "answer": ("rag", "store", "llm"),
    "evaluate": ("evaluation", "embeddings", "llm", "distributed"),
    "run": ("testset", "sources", "generation", "rag", "evaluation", "store", "embeddings", "llm", "distributed"),
    "meta-eval": ("embeddings", "llm"),
    "refresh": ("sources", "store", "llm"),
}
#: The command that chains the stages, and its stages (each a command too), in order.
PIPELINE = "run"
RUN_STAGES: tuple[str, ...] = ("generate", "answer", "evaluate")


def stage_groups(stages: Iterable[str]) -> set[str]:
    return {group for stage in stages for group in COMMAND_GROUPS[stage]}


def groups_used(command: str, given: Collection[str], root: type[BaseModel] = RunConfig) -> set[str]:
    """The groups whose settings `command` uses when `given` are given (`run`: its own and its stages' that the
    settings given do not skip)."""
    if command != PIPELINE:
        return set(COMMAND_GROUPS.get(command, ()))
    skipped = {s.opt.skips for s in iter_settings(root) if s.opt.skips and s.keyword in given}
    own = set(COMMAND_GROUPS[command]) - stage_groups(RUN_STAGES)
    return own | stage_groups(stage for stage in RUN_STAGES if stage not in skipped)


def refusal(setting: Setting, command: str, given: Collection[str], root: type[BaseModel] = RunConfig) -> str | None:
    """Why `setting` does nothing in `command` with `given` (None: it is used), naming what would use it."""
    known = settings_by_keyword(root)
    if setting.group not in groups_used(command, given, root):
        skipper = next((s for s in iter_settings(root) if s.opt.skips and s.keyword in given), None)
        where = f"`{command}` with {skipper.flag}" if command == PIPELINE and skipper else f"`{command}`"
        instead = _instead(setting, command, given, root)
        return f"{setting.flag} is not used by {where}: it is used by {users_of(setting, root)}{instead}"
    if setting.opt.unless and setting.opt.unless in given:
        other = known[setting.opt.unless]
        return (
            f"{setting.flag} is not used when {other.flag} is given: it applies to {other.default_shown()}, which "
            f"{other.flag} ({_what(other)}) replaces"
        )
    if setting.opt.needs and setting.opt.needs not in given:
        other = known[setting.opt.needs]
        return f"{setting.flag} is used only with {other.flag} ({_what(other)}), which is not given"
    return None


def check_given(given: Collection[str], command: str = PIPELINE, root: type[BaseModel] = RunConfig) -> None:
    """A RagtestError naming every setting in `given` (keywords) that `command` would not use."""
    known = settings_by_keyword(root)
    problems = [
        reason for keyword in given if keyword in known and (reason := refusal(known[keyword], command, given, root))
    ]
    if problems:
        raise RagtestError("; ".join(problems))


def users_of(setting: Setting, root: type[BaseModel] = RunConfig) -> str:
    """The commands that use `setting`, in words ("`generate` and `run` without --testset (test-set generation)")."""
    skippers = [s for s in iter_settings(root) if s.opt.skips]
    names = []
    for command in [command for command, groups in COMMAND_GROUPS.items() if setting.group in groups]:
        unless = [s.flag for s in skippers if setting.group not in groups_used(command, {s.keyword}, root)]
        names.append(f"`{command}` without {' or '.join(unless)}" if unless else f"`{command}`")
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names) or "no command"
    title = GROUPS.get(str(setting.group), str(setting.group)).split(" (")[0]
    return f"{listed} ({title} settings)"


def _instead(setting: Setting, command: str, given: Collection[str], root: type[BaseModel]) -> str:
    """The settings this command would use in its place (those declared to mirror it), in words."""
    used = groups_used(command, given, root)
    mirrors = [
        s.flag
        for s in iter_settings(root)
        if s.opt.mirrors == setting.keyword and s.group in used and not (s.opt.unless and s.opt.unless in given)
    ]
    return f"; for the RAG under test, {' or '.join(mirrors)} sets its own" if mirrors else ""


def _what(setting: Setting) -> str:
    return (setting.info.description or setting.keyword).strip()


def applied(config: BaseModel, stages: Collection[str]) -> Callable[[Setting], bool]:
    """Which settings of `config` took effect in a run of `stages`: those of the stages' groups (a group of no
    stage, such as `testset`: when it is set), less those a present `unless` setting or an absent `needs` setting
    turned off."""
    groups = stage_groups(stages)
    staged = stage_groups(RUN_STAGES)
    known = settings_by_keyword(type(config))

    def present(keyword: str) -> bool:
        other = known[keyword]
        return other.value_in(config) not in (None, other.default)

    def keep(setting: Setting) -> bool:
        used = setting.group in groups if setting.group in staged else present(setting.keyword)
        unless, needs = setting.opt.unless, setting.opt.needs
        return used and not (unless and present(unless)) and not (needs and not present(needs))

    return keep
