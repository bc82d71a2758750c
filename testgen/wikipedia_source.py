"""A Wikipedia page as a document: live through `wikipedia` (every HTTP request limited to `timeout_s`), else a
page cache; `prefer_cache=True` reads the cache first; `offline=True` (or env `RAGTEST_OFFLINE=1`) reads only the
cache and sends nothing over the network.

A revision is pinned by `revision=123456789` or a topic written `Title@123456789`: it is read from the cache
(`Title@123456789.txt`, or `Title.txt` whose sidecar names that revision) or fetched through the MediaWiki API
(`action=parse&oldid=...`, the HTML as plain text with `== Heading ==` lines).

The page cache (`cache_dir`, else env `RAGTEST_WIKI_CACHE`) holds `Title_with_underscores.txt` files, plus
`Title_with_underscores@REVID.txt` for pages by revision; live fetches are written under both names, each with a
`.json` sidecar (URL, revision id, fetch time). Env `RAGTEST_WIKIPEDIA_API_URL` replaces the MediaWiki API URL.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import requests
from langchain_core.documents import Document

from ragtest_core.errors import SourceUnavailableError
from testgen.sources import make_document

API_URL_ENV = "RAGTEST_WIKIPEDIA_API_URL"
CACHE_ENV = "RAGTEST_WIKI_CACHE"
OFFLINE_ENV = "RAGTEST_OFFLINE"
_PATCH_LOCK = threading.Lock()
USER_AGENT = "ragtest/0 (test-set generator)"


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
    offline: bool | None = None,
    revision: str | int | None = None,
) -> list[Document]:
    """The Wikipedia page for `topic` (optionally `Title@revid`) as a one-element list of documents;
    `SourceUnavailableError` when neither Wikipedia nor the page cache has it."""
    title, pinned = parse_topic(topic)
    wanted = str(revision) if revision is not None else pinned
    cache_dir = cache_dir or os.environ.get(CACHE_ENV)
    cache = Path(cache_dir) if cache_dir else None
    if offline is None:
        offline = os.environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes")
    failures: list[str] = []
    attempts = (_from_cache,) if offline else (_from_cache, _from_live) if prefer_cache else (_from_live, _from_cache)
    for attempt in attempts:
        if (page := attempt(title, wanted, cache, timeout_s, lang, failures)) is not None:
            return [_to_document(page)]
    name = cache_file_name(title) + (f"@{wanted}" if wanted else "")
    if offline:
        raise SourceUnavailableError(
            f"Wikipedia page {topic!r} is not in the page cache and --offline forbids the network: "
            f"{'; '.join(failures)}. Put {name}.txt into the cache (--wiki-cache DIR or env {CACHE_ENV}), or drop "
            "--offline to fetch it."
        )
    raise SourceUnavailableError(
        f"Wikipedia page {topic!r} is unavailable: {'; '.join(failures)}. Either allow network access to "
        f"Wikipedia, or give a local page cache with `--wiki-cache DIR` (or env {CACHE_ENV}) holding "
        f"{name}.txt."
    )


def parse_topic(topic: str) -> tuple[str, str | None]:
    """`Title@123456789` -> ("Title", "123456789"); a title without a numeric revision -> (title, None)."""
    title, sep, revision = topic.strip().rpartition("@")
    if sep and title.strip() and revision.strip().isdigit():
        return title.strip(), revision.strip()
    return topic.strip(), None


def read_topics(path: str | Path) -> list[str]:
    """Topics from a file, one a line (`Title` or `Title@revid`); blank lines and `#` comments are skipped."""
    file = Path(path)
    if not file.is_file():
        raise SourceUnavailableError(f"no such topics file: {file}")
    lines = (line.split("#", 1)[0].strip() for line in file.read_text(encoding="utf-8").splitlines())
    if not (topics := [line for line in lines if line]):
        raise SourceUnavailableError(f"the topics file {file} names no topic")
    return topics


def cache_file_name(title: str) -> str:
    """`Title_with_underscores` (path separators replaced)."""
    return re.sub(r"\s+", "_", title.strip()).replace("/", "_").replace("\\", "_")


def _normalise_title(title: str) -> str:
    return re.sub(r"\s+", " ", title.replace("_", " ")).strip().casefold()


def _to_document(page: WikiPage) -> Document:
    return make_document(page.text, source=page.title, url=page.url, revision_id=page.revision_id, origin=page.origin)


def page_url(title: str, lang: str) -> str:
    return f"https://{lang}.wikipedia.org/wiki/{cache_file_name(title)}"


# --- the page cache ---------------------------------------------------------------------------------


def _from_cache(
    topic: str, revision: str | None, cache: Path | None, timeout_s: float, lang: str, failures: list[str]
) -> WikiPage | None:
    if cache is None:
        failures.append("no page cache given")
        return None
    if not cache.is_dir():
        failures.append(f"page cache {cache} is not a folder")
        return None
    if (page := read_cached_page(topic, cache, lang, revision)) is None:
        what = f"revision {revision}" if revision else "it"
        failures.append(f"page cache {cache} has no file for {what}")
    return page


def read_cached_page(topic: str, cache: Path, lang: str = "en", revision: str | None = None) -> WikiPage | None:
    """The cached page whose file name matches `topic` (case-insensitive, spaces or underscores); with `revision`,
    only `Title@revision.txt` or a `Title.txt` whose sidecar names that revision."""
    wanted = _normalise_title(topic)
    for file in sorted(cache.glob("*.txt")):
        title_part, file_revision = parse_topic(file.stem)
        if _normalise_title(title_part) != wanted:
            continue
        sidecar = _read_sidecar(file.with_suffix(".json"))
        found = str(sidecar["revision_id"]) if sidecar.get("revision_id") is not None else (file_revision or None)
        if revision is not None and found != revision:
            continue
        if revision is None and file_revision:
            continue  # a page by revision answers only when that revision is asked for
        text = file.read_text(encoding="utf-8", errors="replace")
        title = str(sidecar.get("title") or title_part.replace("_", " "))
        return WikiPage(title, text, str(sidecar.get("url") or page_url(title, lang)), found, "cache")
    return None


def _read_sidecar(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no sidecar, or not JSON
        return {}
    return data if isinstance(data, dict) else {}


def write_cached_page(page: WikiPage, cache: Path, latest: bool) -> None:
    """Save a fetched page as `Title@REVID.txt` (when the revision is known) and, for the latest revision, as
    `Title.txt`, each with a `.json` sidecar (url, revision, fetched_at)."""
    cache.mkdir(parents=True, exist_ok=True)
    stem = cache_file_name(page.title)
    stems = ([stem] if latest else []) + ([f"{stem}@{page.revision_id}"] if page.revision_id else [])
    sidecar = {
        "title": page.title,
        "url": page.url,
        "revision_id": page.revision_id,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    for name in stems:
        (cache / f"{name}.txt").write_text(page.text, encoding="utf-8")
        (cache / f"{name}.json").write_text(json.dumps(sidecar, ensure_ascii=False, indent=1), encoding="utf-8")


# --- live Wikipedia ---------------------------------------------------------------------------------


def _from_live(
    topic: str, revision: str | None, cache: Path | None, timeout_s: float, lang: str, failures: list[str]
) -> WikiPage | None:
    try:
        if revision is None:
            page = fetch_live_page(topic, timeout_s=timeout_s, lang=lang)
        else:
            page = fetch_revision(revision, timeout_s=timeout_s, lang=lang)
            if _normalise_title(page.title) != _normalise_title(topic):
                raise LookupError(f"revision {revision} belongs to {page.title!r}, not {topic!r}")
    except requests.Timeout:
        failures.append(f"Wikipedia did not answer within {timeout_s:g} s")
    except requests.RequestException as exc:
        failures.append(f"Wikipedia is unreachable ({type(exc).__name__})")
    except LookupError as exc:
        failures.append(str(exc))
    except Exception as exc:  # the wikipedia package raises many kinds on odd replies
        failures.append(f"Wikipedia request failed ({type(exc).__name__}: {exc})")
    else:
        if cache is not None:
            write_cached_page(page, cache, latest=revision is None)
        return page
    return None


def api_url(lang: str) -> str:
    return os.environ.get(API_URL_ENV) or f"https://{lang}.wikipedia.org/w/api.php"


def fetch_revision(revision: str, *, timeout_s: float = 10.0, lang: str = "en") -> WikiPage:
    """One revision of a page through the MediaWiki API (`action=parse&oldid=`), as plain text.

    Raises a `requests` exception when the network fails, `LookupError` when the revision does not exist."""
    params = {
        "action": "parse",
        "oldid": revision,
        "prop": "text|revid|displaytitle",
        "format": "json",
        "formatversion": "2",
        "disableeditsection": "1",
    }
    reply = requests.get(api_url(lang), params=params, timeout=timeout_s, headers={"User-Agent": USER_AGENT})
    reply.raise_for_status()
    data = reply.json()
    if "error" in data or "parse" not in data:
        info = data.get("error", {}).get("info", "no such revision")
        raise LookupError(f"Wikipedia has no revision {revision} ({info})")
    parsed = data["parse"]
    title, text = str(parsed.get("title") or ""), html_to_text(str(parsed.get("text") or ""))
    url = f"{page_url(title, lang)}?oldid={revision}"
    return WikiPage(title, text, url, str(parsed.get("revid") or revision), "live")


def html_to_text(html: str) -> str:
    """A parsed page's HTML as plain text: paragraphs and list items as lines, headings as `== Title ==` lines;
    references, edit links, tables, navigation boxes and styles left out."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["style", "script", "table", "sup", "figure"]):
        tag.decompose()
    for tag in soup.select(".mw-editsection, .reflist, .references, .navbox, .hatnote, .mw-empty-elt"):
        tag.decompose()
    lines: list[str] = []
    for element in soup.find_all(["h2", "h3", "h4", "p", "li"]):
        if not (text := " ".join(element.get_text(" ", strip=True).split())):
            continue
        if element.name in ("h2", "h3", "h4"):
            level = "=" * int(element.name[1])
            lines.append(f"\n{level} {text} {level}")
        elif element.name == "p" or not element.find_parent("li"):
            lines.append(text.replace(" ,", ",").replace(" .", "."))
    return "\n".join(lines).strip()


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
            if not (hits := wikipedia.search(topic, results=1)):
                raise LookupError(f"Wikipedia has no page matching {topic!r}") from None
            page = _page_by_title(hits[0])
        text, revision = page.content, getattr(page, "revision_id", None)
    return WikiPage(page.title, text, page.url, str(revision) if revision is not None else None, "live")


def _page_by_title(title: str) -> Any:
    import wikipedia

    try:
        return wikipedia.page(title, auto_suggest=False)
    except wikipedia.DisambiguationError as exc:
        if not exc.options:
            raise LookupError(f"{title!r} is an empty disambiguation page on Wikipedia") from exc
        return wikipedia.page(exc.options[0], auto_suggest=False)


@contextlib.contextmanager
def _wikipedia_session(timeout_s: float, lang: str) -> Iterator[None]:
    """Point `wikipedia` at the API URL for `lang` (or env override) with a request timeout; restore after."""
    import wikipedia.wikipedia as module

    with _PATCH_LOCK:
        saved_requests, saved_url = module.requests, module.API_URL
        module.requests = SimpleNamespace(get=functools.partial(requests.get, timeout=timeout_s))  # its one call
        module.API_URL = api_url(lang)
        try:
            yield
        finally:
            module.requests, module.API_URL = saved_requests, saved_url
