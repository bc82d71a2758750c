"""make_config is typed for type checkers: `**settings: Unpack[ConfigKeywords]`, a TypedDict generated from the
settings declarations (ragtest/config/keywords.py). This test keeps it in step with them: one key per declared
keyword, typed as declared. After adding, renaming or retyping a setting, rewrite the file and review its diff:

    .venv/bin/python -m tests.app.test_make_config_typing
"""

from __future__ import annotations

import difflib
import json
import re
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from ragtest.config import RunConfig
from ragtest.settings import settings_by_keyword

KEYWORDS_FILE = Path(__file__).resolve().parents[2] / "ragtest" / "config" / "keywords.py"
#: make_config's named parameters (also settings): not in the TypedDict.
POSITIONAL = ("topic", "source")
HEADER = '''\
"""make_config's keywords for type checkers: one per setting declared in `ragtest.config`, typed as declared (a
container as any sequence or mapping; None: not given). Generated from the declarations, never edited by hand:
`python -m tests.app.test_make_config_typing` rewrites it, tests/app/test_make_config_typing.py keeps it in step."""

from __future__ import annotations

{imports}

class ConfigKeywords(TypedDict, total=False):
'''


def type_text(annotation: Any) -> str:
    """How a keyword's annotation reads in the TypedDict (what a caller may pass)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is Any:
        return "Any"
    if annotation is type(None):
        return "None"
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(arg) for arg in args)
    if origin is Literal:
        return f"Literal[{', '.join(json.dumps(arg) for arg in args)}]"
    if origin in (list, tuple, set, frozenset, Sequence):
        return f"Sequence[{type_text(args[0])}]"
    if origin in (dict, Mapping):
        return f"Mapping[{type_text(args[0])}, {type_text(args[1])}]"
    if isinstance(annotation, type) and annotation.__module__ == "builtins":
        return annotation.__name__
    raise TypeError(f"no TypedDict text for the annotation {annotation!r}: teach type_text")


def keywords_source() -> str:
    """ragtest/config/keywords.py as the declarations give it."""
    lines = []
    for keyword, setting in settings_by_keyword(RunConfig).items():
        if keyword in POSITIONAL:
            continue
        text = type_text(setting.annotation)
        lines.append(f"    {keyword}: {text if 'None' in text.split(' | ') else text + ' | None'}\n")
    used = set(re.findall(r"\w+", "".join(lines)))
    imports = [
        f"from {module} import {', '.join(n for n in names if n in used or n == 'TypedDict')}\n"
        for module, names in (("collections.abc", ("Mapping", "Sequence")), ("typing", ("Any", "Literal", "TypedDict")))
        if any(n in used or n == "TypedDict" for n in names)
    ]
    return HEADER.format(imports="".join(imports)) + "".join(lines)


def test_make_config_keywords_match_the_declarations() -> None:
    written = KEYWORDS_FILE.read_text(encoding="utf-8")
    wanted = keywords_source()
    diff = "".join(difflib.unified_diff(written.splitlines(True), wanted.splitlines(True), "written", "declared"))
    assert written == wanted, f"rewrite it: python -m tests.app.test_make_config_typing\n{diff}"


def test_the_typed_keywords_are_exactly_the_declared_ones() -> None:
    from ragtest.config.keywords import ConfigKeywords

    declared = set(settings_by_keyword(RunConfig)) - set(POSITIONAL)
    assert set(ConfigKeywords.__annotations__) == declared
    assert ConfigKeywords.__total__ is False


if __name__ == "__main__":
    KEYWORDS_FILE.write_text(keywords_source(), encoding="utf-8")
    print(f"wrote {KEYWORDS_FILE}", file=sys.stderr)
