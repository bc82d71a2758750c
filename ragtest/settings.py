"""Settings declared once. A setting is a field of a pydantic model in `ragtest.config`: its type, default, help
text (the field's description) and validation (the field's constraints and the model's validators) live there,
with an `Opt` beside them for how it reaches users: its CLI flag, `make_config` keyword, environment variable,
CLI group and, where the command line spells it differently, how to read and write it there.

Everything else is derived from the models: the command-line flags (`ragtest.cli_args`), `make_config`'s keyword
arguments and their validation (`build_config`), the manifest's record (`settings_record`) and the command that
re-creates a test set (`to_flags`). Adding a setting is adding one field.
"""

from __future__ import annotations

import difflib
import inspect
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
        literal = next((arg for arg in _members(self.annotation) if get_origin(arg) is Literal), None)
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


def _members(annotation: Any) -> tuple[Any, ...]:
    """The members of a union (X | None), else the annotation alone."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return get_args(annotation)
    return (annotation,)


def _is_bool(annotation: Any) -> bool:
    return bool in _members(annotation)


def _section_type(annotation: Any) -> type[Section] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, Section) else None


def iter_settings(root: type[BaseModel], prefix: tuple[str, ...] = ()) -> Iterator[Setting]:
    """Every setting of `root` and its sections, in declaration order."""
    group = getattr(root, "group", None)
    for name, info in root.model_fields.items():
        section = _section_type(info.annotation)
        if section is not None:
            yield from iter_settings(section, (*prefix, name))
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


def settings_record(config: BaseModel) -> dict[str, Any]:
    """The manifest's record of the settings: every value as JSON, secrets redacted."""
    record = config.model_dump(mode="json")
    for setting in iter_settings(type(config)):
        if setting.opt.secret and setting.value_in(config) is not None:
            target = record
            for name in setting.path[:-1]:
                target = target[name]
            target[setting.name] = "<redacted>"
    return record


def to_flags(config: BaseModel, settings: Sequence[Setting]) -> list[str]:
    """The command-line words that set `settings` to their values in `config` (None values are left out)."""
    words: list[str] = []
    for setting in settings:
        value = setting.value_in(config)
        if value is None or not setting.opt.cli:
            continue
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
