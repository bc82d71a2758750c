"""A Wikipedia page as a document: live through `wikipedia` (with a real timeout), else a page cache.

Order of attempts:

* default: live first (every HTTP request limited to `timeout_s`), then the local page cache;
* `prefer_cache=True`, or env `RAGTEST_OFFLINE=1` when `prefer_cache` is None: the cache first, then live.

The page cache is a folder of `Title_with_underscores.txt` files (the `cache_dir` argument, else env
`RAGTEST_WIKI_CACHE`). Live fetches are written into it with a `Title_with_underscores.json` sidecar
holding the URL, revision id and fetch time. Env `RAGTEST_WIKIPEDIA_API_URL` replaces the MediaWiki API URL
(tests use it). Each HTTP request is limited to `timeout_s`; a page takes two requests (four when the title
is found through search).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import requests
from langchain_core.documents import Document

from ragtest_core.errors import SourceUnavailableError
from testgen.sources import make_document

API_URL_ENV = "RAGTEST_WIKIPEDIA_API_URL"
CACHE_ENV = "RAGTEST_WIKI_CACHE"
OFFLINE_ENV = "RAGTEST_OFFLINE"
_PATCH_LOCK = threading.Lock()


@dataclass(frozen=True)
class WikiPage:
    title: str
    text: str
    url: str | None
    revision_id: str | None
    origin: str  # "live" or "cache"


def load_wikipedia(
    topic: str,
    cache_dir: str | Path | None = None,
    timeout_s: float = 10.0,
    lang: str = "en",
    *,
    prefer_cache: bool | None = None,
) -> list[Document]:
    """The Wikipedia page for `topic` as a one-element list of documents.

    Raises `SourceUnavailableError` when neither Wikipedia nor the page cache has the page; never hangs
    (each request is limited to `timeout_s` seconds).
    """
    cache = resolve_cache_dir(cache_dir)
    if prefer_cache is None:
        prefer_cache = os.environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes")
    failures: list[str] = []
    attempts = (_from_cache, _from_live) if prefer_cache else (_from_live, _from_cache)
    for attempt in attempts:
        page = attempt(topic, cache, timeout_s, lang, failures)
        if page is not None:
            return [_to_document(page)]
    raise SourceUnavailableError(
        f"Wikipedia page {topic!r} is unavailable: {'; '.join(failures)}. Either allow network access to "
        f"Wikipedia, or give a local page cache with `--wiki-cache DIR` (or env {CACHE_ENV}) holding "
        f"{cache_file_name(topic)}.txt."
    )


def resolve_cache_dir(cache_dir: str | Path | None) -> Path | None:
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else None


def cache_file_name(title: str) -> str:
    """`Title_with_underscores` (path separators replaced)."""
    return re.sub(r"\s+", "_", title.strip()).replace("/", "_").replace("\\", "_")


def _normalise_title(title: str) -> str:
    return re.sub(r"\s+", " ", title.replace("_", " ")).strip().casefold()


def page_url(title: str, lang: str) -> str:
    return f"https://{lang}.wikipedia.org/wiki/{cache_file_name(title)}"


def _to_document(page: WikiPage) -> Document:
    return make_document(page.text, source=page.title, url=page.url, revision_id=page.revision_id, origin=page.origin)


# --- the page cache ---------------------------------------------------------------------------------


def _from_cache(topic: str, cache: Path | None, timeout_s: float, lang: str, failures: list[str]) -> WikiPage | None:
    if cache is None:
        failures.append("no page cache given")
        return None
    if not cache.is_dir():
        failures.append(f"page cache {cache} is not a folder")
        return None
    page = read_cached_page(topic, cache, lang)
    if page is None:
        failures.append(f"page cache {cache} has no file for it")
    return page


def read_cached_page(topic: str, cache: Path, lang: str = "en") -> WikiPage | None:
    """The cached page whose file name matches `topic` (case-insensitive, spaces or underscores)."""
    wanted = _normalise_title(topic)
    for file in sorted(cache.glob("*.txt")):
        if _normalise_title(file.stem) != wanted:
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        sidecar = _read_sidecar(file.with_suffix(".json"))
        title = str(sidecar.get("title") or file.stem.replace("_", " "))
        revision = sidecar.get("revision_id")
        return WikiPage(
            title=title,
            text=text,
            url=str(sidecar.get("url") or page_url(title, lang)),
            revision_id=str(revision) if revision is not None else None,
            origin="cache",
        )
    return None


def _read_sidecar(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def write_cached_page(page: WikiPage, cache: Path) -> Path:
    """Save a fetched page as `Title.txt` plus a `Title.json` sidecar (url, revision, fetched_at)."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = cache_file_name(page.title)
    text_path = cache / f"{stem}.txt"
    text_path.write_text(page.text, encoding="utf-8")
    sidecar = {
        "title": page.title,
        "url": page.url,
        "revision_id": page.revision_id,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    (cache / f"{stem}.json").write_text(json.dumps(sidecar, ensure_ascii=False, indent=1), encoding="utf-8")
    return text_path


# --- live Wikipedia ---------------------------------------------------------------------------------


def _from_live(topic: str, cache: Path | None, timeout_s: float, lang: str, failures: list[str]) -> WikiPage | None:
    try:
        page = fetch_live_page(topic, timeout_s=timeout_s, lang=lang)
    except requests.Timeout:
        failures.append(f"Wikipedia did not answer within {timeout_s:g} s")
        return None
    except requests.RequestException as exc:
        failures.append(f"Wikipedia is unreachable ({type(exc).__name__})")
        return None
    except LookupError as exc:
        failures.append(str(exc))
        return None
    except Exception as exc:  # the wikipedia package raises many kinds on odd replies
        failures.append(f"Wikipedia request failed ({type(exc).__name__}: {exc})")
        return None
    if cache is not None:
        write_cached_page(page, cache)
    return page


def fetch_live_page(topic: str, *, timeout_s: float = 10.0, lang: str = "en") -> WikiPage:
    """Fetch a page through the `wikipedia` package: the exact title first, then the best search hit.

    Raises a `requests` exception when the network fails, `LookupError` when no page matches.
    """
    import wikipedia

    with _wikipedia_session(timeout_s, lang):
        try:
            page = _page_by_title(topic)
        except wikipedia.PageError:
            wikipedia.search.clear_cache()
            hits = wikipedia.search(topic, results=1)
            if not hits:
                raise LookupError(f"Wikipedia has no page matching {topic!r}") from None
            page = _page_by_title(hits[0])
        text = page.content
        revision = getattr(page, "revision_id", None)
    return WikiPage(
        title=page.title,
        text=text,
        url=page.url,
        revision_id=str(revision) if revision is not None else None,
        origin="live",
    )


def _page_by_title(title: str) -> Any:
    import wikipedia

    try:
        return wikipedia.page(title, auto_suggest=False)
    except wikipedia.DisambiguationError as exc:
        if not exc.options:
            raise LookupError(f"{title!r} is an empty disambiguation page on Wikipedia") from exc
        return wikipedia.page(exc.options[0], auto_suggest=False)


class _TimeoutRequests:
    """Stands in for the `requests` module inside `wikipedia.wikipedia`: every `get` gets a timeout."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s

    def get(self, url: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout_s)
        return requests.get(url, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(requests, name)


@contextlib.contextmanager
def _wikipedia_session(timeout_s: float, lang: str) -> Iterator[None]:
    """Point `wikipedia` at the API URL for `lang` (or env override) with a request timeout; restore after."""
    import wikipedia.wikipedia as module

    api_url = os.environ.get(API_URL_ENV) or f"https://{lang}.wikipedia.org/w/api.php"
    with _PATCH_LOCK:
        saved_requests, saved_url = module.requests, module.API_URL
        module.requests = _TimeoutRequests(timeout_s)
        module.API_URL = api_url
        try:
            yield
        finally:
            module.requests, module.API_URL = saved_requests, saved_url
