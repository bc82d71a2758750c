"""How settings that the command line spells differently are read and written back (`Opt.parse` / `Opt.render`),
and the environment variables settings read."""

from __future__ import annotations

import json
from typing import Any

CACHE_DIR_ENV = "RAGTEST_CACHE_DIR"
WIKI_CACHE_ENV = "RAGTEST_WIKI_CACHE"
OFFLINE_ENV = "RAGTEST_OFFLINE"
PRICES_ENV = "RAGTEST_PRICES"
RAY_ADDRESS_ENV = "RAGTEST_RAY_ADDRESS"


def decode_separator(text: str) -> str:
    """A separator as typed on the command line: backslash escapes (\\n, \\t, \\\\) decoded."""
    return text.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def separators_in(words: list[str]) -> tuple[str, ...]:
    return tuple(decode_separator(word) for word in words)


def separators_out(value: tuple[str, ...]) -> list[str]:
    return [sep.encode("unicode_escape").decode("ascii") for sep in value]


def parse_metric_list(text: str | None) -> list[str] | None:
    """`a, b,c` -> ["a", "b", "c"]; None or empty -> None (the default metrics)."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    return names or None


def ray_address_or_auto(value: str | None) -> str:
    """`--ray` alone means "auto"."""
    return value or "auto"


def parse_gpus(value: object) -> str:
    """`--ray-gpus`: "auto", or GPUs per Ray embedding worker as a number of at least 0 ("1", "0.5"), as text."""
    text = str(value).strip().lower()
    try:
        number = float(text)
    except ValueError:
        number = -1.0
    if text != "auto" and not number >= 0:
        raise ValueError(
            f"must be 'auto' or a number of GPUs of at least 0 (0.5: two workers share a GPU), got {value!r}"
        )
    return text


def rag_args_out(value: dict[str, Any]) -> list[str]:
    return [f"{name}={json.dumps(item) if not isinstance(item, str) else item}" for name, item in value.items()]
