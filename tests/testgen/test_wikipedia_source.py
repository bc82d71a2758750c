from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ragtest_core.errors import SourceUnavailableError
from testgen import load_wikipedia
from testgen.wikipedia_source import API_URL_ENV, CACHE_ENV, OFFLINE_ENV, parse_topic, read_topics
from tests.testgen.mediawiki_stub import closed_port_url, mediawiki_server, silent_server

PYTHON = "Python (programming language)"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (API_URL_ENV, CACHE_ENV, OFFLINE_ENV):
        monkeypatch.delenv(name, raising=False)


def test_live_fetch_records_title_url_revision_and_writes_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mediawiki_server() as (url, requests):
        monkeypatch.setenv(API_URL_ENV, url)
        [doc] = load_wikipedia("loopback language", cache_dir=tmp_path, timeout_s=5)
    assert doc.metadata["source"] == "Loopback Language"
    assert doc.metadata["url"] == "https://en.wikipedia.org/wiki/Loopback_Language"
    assert doc.metadata["revision_id"] == "987654321"
    assert doc.metadata["language"] == "en"
    assert doc.metadata["origin"] == "live"
    assert "created by Ada Example" in doc.page_content
    assert any(r.get("rvprop") == "ids" for r in requests)
    assert (tmp_path / "Loopback_Language.txt").read_text(encoding="utf-8") == doc.page_content
    sidecar = json.loads((tmp_path / "Loopback_Language.json").read_text(encoding="utf-8"))
    assert sidecar["revision_id"] == "987654321" and sidecar["fetched_at"]
    # the cached copy now serves offline, with the sidecar's revision
    [cached] = load_wikipedia("Loopback_Language", cache_dir=tmp_path, prefer_cache=True)
    assert cached.metadata["origin"] == "cache" and cached.metadata["revision_id"] == "987654321"
    assert cached.metadata["doc_id"] == doc.metadata["doc_id"]


def test_unreachable_server_falls_back_to_cache(wiki_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_URL_ENV, closed_port_url())
    start = time.monotonic()
    [doc] = load_wikipedia("python (programming language)", cache_dir=wiki_dir, timeout_s=2)
    assert time.monotonic() - start < 2
    assert doc.metadata["source"] == PYTHON
    assert doc.metadata["revision_id"] is None
    assert doc.metadata["origin"] == "cache"
    assert doc.page_content.startswith("Python is a high-level")


def test_silent_server_times_out_and_falls_back(wiki_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(wiki_dir))
    with silent_server() as url:
        monkeypatch.setenv(API_URL_ENV, url)
        start = time.monotonic()
        [doc] = load_wikipedia("Brown bear", timeout_s=0.5)
        elapsed = time.monotonic() - start
    assert elapsed < 3
    assert doc.metadata["source"] == "Brown bear"


def test_offline_env_reads_cache_without_network(wiki_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OFFLINE_ENV, "1")
    with silent_server() as url:
        monkeypatch.setenv(API_URL_ENV, url)
        start = time.monotonic()
        [doc] = load_wikipedia("Polar_bear", cache_dir=wiki_dir, timeout_s=5)
    assert time.monotonic() - start < 1
    assert doc.metadata["source"] == "Polar bear"


def test_neither_live_nor_cache_names_both_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_URL_ENV, closed_port_url())
    with pytest.raises(SourceUnavailableError) as info:
        load_wikipedia("No Such Page", cache_dir=tmp_path, timeout_s=1)
    message = str(info.value)
    assert "--wiki-cache DIR" in message and CACHE_ENV in message
    assert "network access" in message


def test_missing_page_live_and_in_cache_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with mediawiki_server() as (url, _):
        monkeypatch.setenv(API_URL_ENV, url)
        with pytest.raises(SourceUnavailableError, match="no page matching"):
            load_wikipedia("Zzyzx Qwerty", cache_dir=tmp_path, timeout_s=5)


def test_a_pinned_revision_is_fetched_and_cached_by_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with mediawiki_server() as (url, requests):
        monkeypatch.setenv(API_URL_ENV, url)
        [doc] = load_wikipedia("Loopback Language", cache_dir=tmp_path, timeout_s=5, revision=987000001)
        with pytest.raises(SourceUnavailableError, match="no revision 5"):
            load_wikipedia("Loopback Language@5", cache_dir=tmp_path, timeout_s=5)
    assert any(r.get("action") == "parse" and r.get("oldid") == "987000001" for r in requests)
    assert doc.metadata["revision_id"] == "987000001" and doc.metadata["origin"] == "live"
    assert doc.metadata["url"].endswith("Loopback_Language?oldid=987000001")
    text = doc.page_content
    assert "tiny scripting language" in text and "== History ==" in text and "created by Ada Example in 2009" in text
    assert "[1]" not in text and "[edit]" not in text and "infobox" not in text and "A source" not in text
    assert (tmp_path / "Loopback_Language@987000001.txt").read_text(encoding="utf-8") == text
    assert not (tmp_path / "Loopback_Language.txt").exists()  # not the latest revision
    # offline, the revision comes from the cache by `Title@revid`; another revision or the latest does not
    [cached] = load_wikipedia("Loopback Language@987000001", cache_dir=tmp_path, offline=True)
    assert cached.page_content == text and cached.metadata["origin"] == "cache"
    assert cached.metadata["revision_id"] == "987000001"
    for topic in ("Loopback Language@987000002", "Loopback Language"):
        with pytest.raises(SourceUnavailableError, match="--offline"):
            load_wikipedia(topic, cache_dir=tmp_path, offline=True)


def test_offline_never_touches_the_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OFFLINE_ENV, "1")
    with mediawiki_server() as (url, requests):
        monkeypatch.setenv(API_URL_ENV, url)
        with pytest.raises(SourceUnavailableError, match="not in the page cache"):
            load_wikipedia("Loopback Language", cache_dir=tmp_path, timeout_s=5)
        with pytest.raises(SourceUnavailableError):
            load_wikipedia("Loopback Language", cache_dir=tmp_path, timeout_s=5, prefer_cache=True)
    assert requests == []


def test_topics_and_revisions_are_parsed(tmp_path: Path) -> None:
    assert parse_topic("Brown bear@1234") == ("Brown bear", "1234")
    assert parse_topic(" C@ ") == ("C@", None) and parse_topic("user@example") == ("user@example", None)
    topics = tmp_path / "topics.txt"
    topics.write_text("# pinned\nBrown bear@1234\n\nPolar bear  # latest\n", encoding="utf-8")
    assert read_topics(topics) == ["Brown bear@1234", "Polar bear"]
