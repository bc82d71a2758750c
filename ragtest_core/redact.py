"""Keeping secrets off disk and off the console: credentials inside URLs, values of arguments named like keys,
tokens or passwords, header values, and bearer tokens inside free text, each replaced by `REDACTED`.

What is redacted:

- a URL's user information (`http://user:PASSWORD@host/v1` -> `http://<redacted>@host/v1`: a user name alone can
  be a token too, as in `https://TOKEN@host`), and the values of query parameters named like secrets
  (`?api_key=...`, `&sig=...`);
- the value of a name that reads as a secret: its words (split on `_`, `-`, `.` and case changes) include key,
  token, password, secret, credential, auth, cookie, signature, ... (`api_key`, `openaiToken`, `X-Api-Key`);
- every value under a name that reads as headers (`headers={"Authorization": "Bearer ..."}`): header names stay,
  their values go, since any header can carry a credential;
- `Bearer XYZ` / `Basic XYZ` and URLs with credentials inside any text (error messages, commands).

Redaction is for what is written or printed; the values themselves still reach the code that needs them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "<redacted>"

_SECRET_WORDS = (
    "key apikey token password passwd pwd pass secret credential credentials auth authorization cookie signature sig "
    "bearer session private"
)
#: Words that make a name a secret's name.
SECRET_WORDS = frozenset(_SECRET_WORDS.split())
#: Names whose value is a mapping of headers: every value in it is redacted.
HEADER_NAMES = frozenset({"headers", "header", "http_headers", "default_headers", "extra_headers"})

_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: scheme://userinfo@ : the user information of a URL inside text (up to the first '@' before the host part).
_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^\s/@?#]+)@")
_AUTH_SCHEME = re.compile(r"(?i)\b(?P<scheme>bearer|basic|token)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]+")


def name_words(name: str) -> list[str]:
    """`openaiApiKey` -> ["openai", "api", "key"]; `X-Api-Key` -> ["x", "api", "key"]."""
    return [word.lower() for part in re.split(r"[^A-Za-z0-9]+", name) for word in _NAME_WORDS.findall(part)]


def is_secret_name(name: str) -> bool:
    """True when a name reads as a secret's (api_key, openaiToken, X-Api-Key, password, client_secret, ...)."""
    words = name_words(name)
    return any(word in SECRET_WORDS for word in words) or "apikey" in "".join(words)


def is_header_name(name: str) -> bool:
    return name.lower().replace("-", "_") in HEADER_NAMES


def redact_url(url: str) -> str:
    """A URL without its credentials: user information and secret-named query values replaced."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL urlsplit accepts (`http://[::1`): only the patterns, never `redact_text` again
        return _redact_patterns(url)
    netloc = f"{REDACTED}@{parts.netloc.rsplit('@', 1)[1]}" if "@" in parts.netloc else parts.netloc
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = parts.query
    if any(is_secret_name(name) for name, _ in pairs):
        query = urlencode([(name, REDACTED if is_secret_name(name) else value) for name, value in pairs], safe="<>")
    unchanged = netloc == parts.netloc and query == parts.query
    return url if unchanged else urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """`text` with every URL's credentials and every `Bearer ...`/`Basic ...` token replaced."""
    return _redact_patterns(_URL.sub(lambda match: redact_url(match.group(0)), text) if "://" in text else text)


def _redact_patterns(text: str) -> str:
    text = _URL_USERINFO.sub(lambda match: f"{match.group('scheme')}{REDACTED}@", text)
    return _AUTH_SCHEME.sub(lambda match: f"{match.group('scheme')} {REDACTED}", text)


def redact_value(value: Any, name: str | None = None) -> Any:
    """`value` as it may be written under `name`: all of it when the name reads as a secret's, every header value
    under a headers name, else its parts (mappings by their keys, lists item by item, texts by `redact_text`)."""
    if name is not None and is_secret_name(name) and value not in (None, ""):
        return REDACTED
    if name is not None and is_header_name(name) and isinstance(value, Mapping):
        return {str(key): REDACTED for key in value}
    if isinstance(value, Mapping):
        return {key: redact_value(item, str(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(item) for item in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` with each literal secret value (and what `redact_text` finds) replaced: for messages that may quote
    a value wherever it appears (an exception from the user's adapter, say)."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return redact_text(text)


def secret_values(value: Any, name: str | None = None) -> list[str]:
    """The literal secrets inside `value` (what `redact_value` would hide), for `scrub`."""
    if name is not None and (is_secret_name(name) or is_header_name(name)):
        return [
            str(item) for item in (value.values() if isinstance(value, Mapping) else [value]) if item not in (None, "")
        ]
    if isinstance(value, Mapping):
        return [found for key, item in value.items() for found in secret_values(item, str(key))]
    if isinstance(value, (list, tuple)):
        return [found for item in value for found in secret_values(item)]
    if isinstance(value, str) and "://" in value:
        return [found for match in _URL.finditer(value) for found in url_secrets(match.group(0))]
    return []


def url_secrets(url: str) -> list[str]:
    """The credentials inside a URL: its user information (whole, and the password alone) and secret query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.netloc.rsplit("@", 1)[0], parts.password or None] if "@" in parts.netloc else []
    found += [value for name, value in parse_qsl(parts.query, keep_blank_values=True) if is_secret_name(name) and value]
    return [item for item in found if item is not None]
