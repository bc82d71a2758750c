"""A loopback HTTP server answering like the MediaWiki API for the calls `wikipedia` 1.4.0 makes.

Also a silent server (accepts connections, never answers) and a closed port, for the failure paths.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PAGES: dict[str, dict[str, object]] = {
    "Loopback Language": {
        "pageid": "4242",
        "revid": 987654321,
        "extract": (
            "Loopback Language is a small programming language.\n"
            "Loopback Language was created by Ada Example.\n"
            "Loopback Language 1.0 was released in 2011."
        ),
        # older revisions, as `action=parse&oldid=` returns them (HTML)
        "history": {
            987000001: (
                '<div class="mw-parser-output"><p>Loopback Language is a tiny scripting language.<sup '
                'class="reference">[1]</sup></p><h2>History<span class="mw-editsection">[edit]</span></h2>'
                "<p>Loopback Language was created by Ada Example in 2009.</p>"
                '<table><tr><td>infobox</td></tr></table><ol class="references"><li>A source.</li></ol></div>'
            ),
        },
    }
}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        params = {k: v[0] for k, v in parse_qs(urlparse(self.path).query, keep_blank_values=True).items()}
        self.server.requests.append(params)  # type: ignore[attr-defined]
        body = json.dumps(answer(params)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _find(title: str) -> tuple[str, dict[str, object]] | None:
    for name, page in PAGES.items():
        if name.casefold() == title.replace("_", " ").casefold():
            return name, page
    return None


def _revision(oldid: str) -> dict[str, object]:
    """What `action=parse&oldid=...&formatversion=2` returns for a stored revision (an error otherwise)."""
    for name, page in PAGES.items():
        history = page.get("history", {})
        assert isinstance(history, dict)
        if oldid.isdigit() and int(oldid) in history:
            return {
                "parse": {
                    "title": name,
                    "pageid": int(str(page["pageid"])),
                    "revid": int(oldid),
                    "text": history[int(oldid)],
                }
            }
    return {"error": {"code": "nosuchrevid", "info": f"There is no revision with ID {oldid}."}}


def answer(params: dict[str, str]) -> dict[str, object]:
    """The JSON MediaWiki would return for these query parameters."""
    if params.get("action") == "parse":
        return _revision(params.get("oldid", ""))
    if params.get("list") == "search":
        words = params.get("srsearch", "").casefold().split()
        hits = [{"title": name} for name in PAGES if all(w in name.casefold() for w in words)]
        return {"query": {"search": hits, "searchinfo": {}}}
    found = _find(params.get("titles", ""))
    if found is None:
        return {"query": {"pages": {"-1": {"title": params.get("titles", ""), "missing": ""}}}}
    name, page = found
    pageid = str(page["pageid"])
    prop = params.get("prop", "")
    if prop == "info|pageprops":
        url = "https://en.wikipedia.org/wiki/" + name.replace(" ", "_")
        return {"query": {"pages": {pageid: {"pageid": int(pageid), "title": name, "fullurl": url}}}}
    if prop == "extracts|revisions":
        revisions = [{"revid": page["revid"], "parentid": int(str(page["revid"])) - 1}]
        return {"query": {"pages": {pageid: {"title": name, "extract": page["extract"], "revisions": revisions}}}}
    if prop == "extracts":  # exintro summary
        first = str(page["extract"]).split("\n")[0]
        return {"query": {"pages": {pageid: {"title": name, "extract": first}}}}
    return {"error": {"info": f"unsupported call {params}"}}


@contextmanager
def mediawiki_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """(API URL, list of received query parameter dicts) of a running stub; shut down on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    requests: list[dict[str, str]] = []
    server.requests = requests  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/w/api.php", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def silent_server() -> Iterator[str]:
    """An API URL whose server accepts connections but never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/w/api.php"
    finally:
        listener.close()


def closed_port_url() -> str:
    """An API URL on a port nobody listens on (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/w/api.php"
