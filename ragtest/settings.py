"""Settings declared once. A setting is a field of a pydantic model in `ragtest.config`: its type, default, help
text (the field's description) and validation (the field's constraints and the model's validators) live there,
with an `Opt` beside them for how it reaches users: its CLI flag, `make_config` keyword, environment variable,
CLI group and, where the command line spells it differently, how to read and write it there.

Everything else is derived from the models: the command-line flags (`ragtest.cli_args`), `make_config`'s keyword
arguments and their validation (`build_config`), the manifest's record (`settings_record`) and the command that
re-creates a test set (`to_flags`). Adding a setting is adding one field.

Secrets never reach a file or the console: `settings_record`, `to_flags(..., redacted=True)` and `redact_argv` write
a setting declared `Opt(secret=True)` as "<redacted>", and every other value through `ragtest_core.redact`
(credentials inside URLs, values under names like api_key/token/password, header values).
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ragtest_core.errors import RagtestError
from ragtest_core.redact import REDACTED, redact_text, redact_value, secret_values

Model = TypeVar("Model", bound=BaseModel)
#: Values an environment variable reads as "off".
_OFF = ("", "0", "false", "no", "off")


@dataclass(frozen=True)
class Opt:
    """How a setting reaches users (everything else about it is its pydantic field)."""

    #: The CLI flag; default "--" + the keyword with "-" for "_". None with `cli=False`: no flag.
    flag: str | None = None
    #: The `make_config` keyword; default the field's name.
    keyword: str | None = None
    #: An environment variable read when the setting is not given.
    env: str | None = None
    #: The CLI group (see `ragtest.cli_args.GROUPS`); default the section's `group`.
    group: str | None = None
    metavar: str | None = None
    #: How `--help` shows the default, when the value itself would not say it well.
    default_text: str | None = None
    #: argparse's nargs or "append" for a repeatable flag.
    nargs: str | None = None
    action: str | None = None
    #: The command line's text -> the setting's value, and back: the words after the flag (for `to_flags`; with
    #: action="append", one flag per word).
    parse: Callable[[Any], Any] | None = None
    render: Callable[[Any], list[str]] | None = None
    #: Holds credentials: written and printed redacted.
    secret: bool = False
    cli: bool = True
    #: Where the setting applies (`ragtest.config.scope`): not when the setting with this keyword is given (a
    #: setting of the reference RAG, unless "rag" names the user's own adapter) ...
    unless: str | None = None
    #: ... only when the setting with this keyword is given (an argument of the user's adapter needs "rag") ...
    needs: str | None = None
    #: ... and, given, which stage of `run` it makes `run` skip (`--testset` skips "generate").
    skips: str | None = None
    #: The keyword of the test set's setting this one is the RAG's own counterpart of (`rag_chunk_size` mirrors
    #: `chunk_size`): unset, the test set's value holds; a refusal of that setting names this one.
    mirrors: str | None = None


class Section(BaseModel):
    """A group of settings. Frozen; unknown names are errors; unset fields with an `Opt.env` read it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    #: The CLI group of this section's settings (an `Opt.group` overrides it per field).
    group: ClassVar[str | None] = None

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        filled = dict(data)
        for name, info in cls.model_fields.items():
            opt = opt_of(info)
            if opt.env and name not in filled and (value := os.environ.get(opt.env, "").strip()):
                filled[name] = value.lower() not in _OFF if _is_bool(info.annotation) else value
        return filled


@dataclass(frozen=True)
class Setting:
    """One declared setting, as the derived interfaces see it."""

    path: tuple[str, ...]  # field names from the root model, e.g. ("generation", "chunk_size")
    info: FieldInfo
    opt: Opt
    section_group: str | None

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def keyword(self) -> str:
        return self.opt.keyword or self.name

    @property
    def flag(self) -> str:
        return self.opt.flag or "--" + self.keyword.replace("_", "-")

    @property
    def group(self) -> str | None:
        return self.opt.group or self.section_group

    @property
    def annotation(self) -> Any:
        return self.info.annotation

    @property
    def default(self) -> Any:
        if self.info.default_factory is not None:
            return self.info.default_factory()  # type: ignore[call-arg]
        return None if self.info.default is PydanticUndefined else self.info.default

    @property
    def is_bool(self) -> bool:
        return _is_bool(self.annotation)

    @property
    def choices(self) -> tuple[Any, ...] | None:
        literal = next((arg for arg in members(self.annotation) if get_origin(arg) is Literal), None)
        return get_args(literal) if literal is not None else None

    def default_shown(self) -> str:
        """The default as `--help` shows it."""
        if self.opt.default_text is not None:
            return self.opt.default_text
        value = self.default
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    def help(self) -> str:
        description = (self.info.description or "").strip()
        env = f"; also ${self.opt.env}" if self.opt.env else ""
        return f"{description} (default: {self.default_shown()}{env})".replace("%", "%%")

    def value_in(self, root: BaseModel) -> Any:
        value: Any = root
        for name in self.path:
            value = getattr(value, name)
        return value


def opt_of(info: FieldInfo) -> Opt:
    return next((item for item in info.metadata if isinstance(item, Opt)), Opt())


def members(annotation: Any) -> tuple[Any, ...]:
    """The members of a union (X | None), else the annotation alone."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return get_args(annotation)
    return (annotation,)


def _is_bool(annotation: Any) -> bool:
    return bool in members(annotation)


def iter_settings(root: type[BaseModel], prefix: tuple[str, ...] = ()) -> Iterator[Setting]:
    """Every setting of `root` and its sections, in declaration order."""
    group = getattr(root, "group", None)
    for name, info in root.model_fields.items():
        if isinstance(info.annotation, type) and issubclass(info.annotation, Section):
            yield from iter_settings(info.annotation, (*prefix, name))
        else:
            yield Setting((*prefix, name), info, opt_of(info), group)


def settings_by_keyword(root: type[BaseModel]) -> dict[str, Setting]:
    found: dict[str, Setting] = {}
    for setting in iter_settings(root):
        if setting.keyword in found:
            raise TypeError(f"two settings use the keyword {setting.keyword!r}: {found[setting.keyword].path}, ...")
        found[setting.keyword] = setting
    return found


def build_config(root: type[Model], values: Mapping[str, Any]) -> Model:
    """`root` from flat keyword values (`make_config`'s): unknown keywords are a TypeError naming close ones,
    invalid values a RagtestError naming the option and what it must be."""
    known = settings_by_keyword(root)
    nested: dict[str, Any] = {}
    for keyword, value in values.items():
        setting = known.get(keyword)
        if setting is None:
            close = difflib.get_close_matches(keyword, list(known), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise TypeError(f"make_config() got an unexpected keyword argument {keyword!r}{hint}")
        target = nested
        for name in setting.path[:-1]:
            target = target.setdefault(name, {})
        target[setting.name] = value
    try:
        return root.model_validate(nested)
    except ValidationError as exc:
        raise RagtestError("invalid settings: " + "; ".join(describe_errors(root, exc))) from None


def config_factory(root: type[Model], positional: Sequence[str] = ()) -> Callable[..., Model]:
    """A `make_config` for `root`: the settings by keyword (`positional` ones also by position), None meaning "not
    given" (the default or the environment variable), with a signature listing every setting and its default."""
    found = settings_by_keyword(root)

    def make(*args: Any, **values: Any) -> Model:
        if len(args) > len(positional):
            raise TypeError(f"make_config() takes at most {len(positional)} positional arguments")
        given = {**dict(zip(positional, args, strict=False)), **values}
        return build_config(root, {key: value for key, value in given.items() if value is not None})

    kind = inspect.Parameter
    params = [
        kind(name, kind.POSITIONAL_OR_KEYWORD, default=None, annotation=found[name].annotation) for name in positional
    ]
    params += [
        kind(keyword, kind.KEYWORD_ONLY, default=setting.default, annotation=setting.annotation)
        for keyword, setting in found.items()
        if keyword not in positional
    ]
    make.__signature__ = inspect.Signature(params, return_annotation=root)  # type: ignore[attr-defined]
    return make


def describe_errors(root: type[BaseModel], error: ValidationError) -> list[str]:
    """Each validation error as the option a user would fix."""
    by_path = {setting.path: setting for setting in iter_settings(root)}
    found = []
    for item in error.errors():
        path = tuple(str(part) for part in item["loc"])
        setting = next((by_path[path[:n]] for n in range(len(path), 0, -1) if path[:n] in by_path), None)
        message = str(item["msg"]).removeprefix("Value error, ")
        if setting is None:
            found.append(message)
            continue
        ctx = item.get("ctx") or {}
        value = item.get("input")
        if item["type"] in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
            words = {"greater_than_equal": "at least", "greater_than": "above", "less_than_equal": "at most"}
            bound = next(iter(ctx.values()))
            message = f"must be {words.get(item['type'], 'below')} {bound}, got {value!r}"
        elif item["type"] == "literal_error":
            message = f"must be one of {ctx.get('expected')}, got {value!r}"
        found.append(f"{setting.flag} {message}")
    return found


def settings_record(config: BaseModel, applies: Callable[[Setting], bool] | None = None) -> dict[str, Any]:
    """The manifest's record of the settings: every value as JSON, secrets redacted. With `applies`, only the
    settings it keeps (those that took effect); a section left with none is left out."""
    dumped = config.model_dump(mode="json")
    record: dict[str, Any] = {}
    for setting in iter_settings(type(config)):
        if applies is not None and not applies(setting):
            continue
        source, target = dumped, record
        for name in setting.path[:-1]:
            source, target = source[name], target.setdefault(name, {})
        target[setting.name] = written_value(setting, source[setting.name])
    return record


def written_value(setting: Setting, value: Any) -> Any:
    """A setting's value as it may be written or printed: "<redacted>" for a secret, else with the credentials
    inside it (a URL's password, an adapter argument named like a key, header values) redacted."""
    if value is None:
        return None
    if setting.opt.secret:
        return REDACTED
    return redact_value(value, setting.name)


def config_secrets(config: BaseModel) -> list[str]:
    """The literal secret values inside `config` (what `written_value` hides), to scrub from messages that may
    quote them, such as an error raised by the user's adapter."""
    found: list[str] = []
    for setting in iter_settings(type(config)):
        value = setting.value_in(config)
        if value is None:
            continue
        found += [str(value)] if setting.opt.secret else secret_values(value, setting.name)
    return found


def redact_argv(argv: Sequence[str], root: type[BaseModel]) -> list[str]:
    """A command line as it may be written (the manifest's `command`): the word after a secret setting's flag
    replaced, `--rag-arg NAME=VALUE` redacted by NAME, credentials inside any other word redacted."""
    by_flag = {setting.flag: setting for setting in iter_settings(root) if setting.opt.cli}
    words: list[str] = []
    pending: Setting | None = None
    for word in argv:
        if pending is not None:
            words.append(_redacted_word(pending, word))
            pending = None
            continue
        flag, equals, value = word.partition("=")
        setting = by_flag.get(flag) if word.startswith("--") else None
        if setting is not None and equals:
            words.append(f"{flag}={_redacted_word(setting, value)}")
        else:
            words.append(redact_text(word))
            pending = None if setting is None or setting.is_bool else setting  # a yes/no flag takes no word
    return words


def _redacted_word(setting: Setting, word: str) -> str:
    if setting.opt.secret:
        return REDACTED
    if setting.opt.parse is not None and setting.opt.action == "append":  # NAME=VALUE pairs (--rag-arg)
        name, equals, text = word.partition("=")
        if equals:
            parsed = setting.opt.parse([word])
            value = parsed.get(name.strip(), text) if isinstance(parsed, dict) else text
            redacted = redact_value(value, name.strip())
            if redacted == value:
                return redact_text(word)
            return f"{name}={redacted if isinstance(redacted, str) else json.dumps(redacted)}"
    return redact_text(word)


def to_flags(config: BaseModel, settings: Sequence[Setting], redacted: bool = False) -> list[str]:
    """The command-line words that set `settings` to their values in `config` (None values are left out); with
    `redacted`, as they may be written (secrets and credentials replaced, see `written_value`)."""
    words: list[str] = []
    for setting in settings:
        value = setting.value_in(config)
        if value is None or not setting.opt.cli:
            continue
        if redacted and setting.opt.secret:
            words += [setting.flag, REDACTED]
            continue
        if redacted:
            value = written_value(setting, value)
        if setting.opt.render is not None:
            rendered = setting.opt.render(value)
            if setting.opt.action == "append":
                words += [word for item in rendered for word in (setting.flag, item)]
            else:
                words += [setting.flag, *rendered]
        elif setting.is_bool:
            words.append(setting.flag if value else "--no-" + setting.flag.removeprefix("--"))
        else:
            words += [setting.flag, str(value)]
    return words


def flag_of(section: type[BaseModel], name: str) -> str:
    """The CLI flag of `section`'s field `name` (for messages that name two settings at once)."""
    info = section.model_fields[name]
    return Setting((name,), info, opt_of(info), None).flag
