"""Headless Chromium (Debian's `chromium` package) for the report tests: screenshot, DOM, and the requests a
page made, read from Chromium's own network log."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

#: .ci/run sets this, so a missing browser fails the test in CI instead of skipping it.
REQUIRE_ENV = "RAGTEST_REQUIRE_BROWSER"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-first-run",
    "--no-pings",
)
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-error:")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile.mkdir(parents=True, exist_ok=True)
    command = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(profile)}
    )


def screenshot(browser: str, page: Path, png: Path, netlog: Path, profile: Path, size: str = "1400,2000") -> None:
    """Load `page` from its file:// URL, write a screenshot and Chromium's network log."""
    result = _run(
        browser, profile, f"--screenshot={png}", f"--window-size={size}", f"--log-net-log={netlog}", page.as_uri()
    )
    assert png.is_file(), result.stderr[-2000:]


def dump_dom(browser: str, page: Path, profile: Path) -> str:
    """The page's DOM after loading, as Chromium serialises it."""
    return _run(browser, profile, "--dump-dom", page.as_uri()).stdout


def page_requests(netlog: Path) -> list[str]:
    """URLs the page asked the network for: URL requests a page initiated (Chromium's own background requests say
    'not an origin'), except local schemes."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if event["type"] != start_job or "url" not in params:
            continue
        if params.get("initiator") == "not an origin" or params["url"].startswith(LOCAL_SCHEMES):
            continue
        urls.append(params["url"])
    return urls


def colour_pixels(png: Path, colour: str, tolerance: int = 3) -> int:
    """How many pixels of the screenshot have `colour` (#rrggbb), within `tolerance` per channel (0-255)."""
    import matplotlib.image

    image = (matplotlib.image.imread(str(png))[..., :3] * 255).round().astype(int)
    target = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int(np.sum(np.all(np.abs(image - target) <= tolerance, axis=-1)))


def non_white_share(png: Path) -> float:
    import matplotlib.image

    image = matplotlib.image.imread(str(png))[..., :3]
    return float(np.mean(np.any(image < 0.95, axis=-1)))


_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>')
_PROBE = (
    "<script>window.addEventListener('load', () => {{ const b = document.body;"
    " b.setAttribute('data-height', document.documentElement.scrollHeight);"
    " b.setAttribute('data-tops', JSON.stringify({ids}.map(i => document.getElementById(i)?.offsetTop ?? -1)));"
    " b.setAttribute('data-open', [...document.querySelectorAll('details[open]')].map(d => d.id).join(' ')); }});"
    "</script>"
)


def layout(
    browser: str, page: Path, profile: Path, ids: tuple[str, ...] = (), fragment: str = "", width: int = 1400
) -> dict[str, object]:
    """The page's height in CSS pixels at `width`, the top of each element of `ids`, and the ids of the open
    <details> (after navigating to `#fragment`), measured on a copy of the page with a script added (the page's own
    CSP allows none; the copy is for measuring only)."""
    html = _CSP.sub("", page.read_text(encoding="utf-8"))
    probe = page.with_name(f"{page.stem}.probe.html")
    probe.write_text(html.replace("</body>", _PROBE.format(ids=json.dumps(list(ids))) + "</body>"), encoding="utf-8")
    try:
        uri = probe.as_uri() + (f"#{fragment}" if fragment else "")
        dom = _run(browser, profile, f"--window-size={width},1000", "--virtual-time-budget=2000", "--dump-dom", uri)
    finally:
        probe.unlink()
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None, dom.stderr[-2000:]
    attributes = dict(re.findall(r'data-(\w+)="([^"]*)"', body.group(0)))
    return {
        "height": int(attributes["height"]),
        "tops": dict(zip(ids, json.loads(attributes["tops"].replace("&quot;", '"')), strict=True)),
        "open": attributes.get("open", "").split(),
    }
