"""Labelling by keyboard on the review page: time per row for 20 rows, in headless Chromium (Selenium through
Debian's chromium-driver), with screenshots of each screen.

    python -m bench.review_timing [--rows 20] [--shots DIR]

Builds a run offline (`ragtest run --topic "Python (programming language)" --offline --size 20`), serves
`ragtest review` on it, and labels `--rows` answers the way a person would type them: y/p/n for faithfulness,
y/p/n for correctness, the numbers of the relevant contexts, Enter. Prints the keystrokes, the wall time per row
(page load, keys, the save round trip) and the total; a person's reading time comes on top. Screenshots: the start
page, a test-set question, the edit and reject forms, a labelling row before and after its keys, the final page.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ragtest.cli import main as ragtest_main
from ragtest.review import Labelling, ReviewServer, resolve

WIKI = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wikipedia"
#: What a labeller types per row, in turn (faithfulness, correctness, relevant contexts).
KEYS = ("yy1", "yp12", "nn", "py2", "yy13", "pn", "yy1", "yn3", "ny", "yy12")


def build_run(folder: Path, size: int) -> Path:
    wiki = os.environ.get("RAGTEST_WIKI_CACHE", str(WIKI))
    source = ["--topic", "Python (programming language)", "--wiki-cache", wiki, "--offline", "--size", str(size)]
    metrics = ["--metrics", "faithfulness,answer_correctness,context_precision"]
    code = ragtest_main(["--quiet", "run", *source, *metrics, "--out", str(folder)])
    if code != 0:
        raise SystemExit(f"ragtest run failed ({code})")
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.review_timing", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--shots", default=None, help="folder for the screenshots (default: a temporary one)")
    args = parser.parse_args(argv)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    work = Path(tempfile.mkdtemp(prefix="review-timing-"))
    shots = Path(args.shots) if args.shots else work / "shots"
    shots.mkdir(parents=True, exist_ok=True)
    run = build_run(work / "run", max(20, args.rows))
    workspace = resolve(run)
    assert workspace.rows is not None and workspace.labels is not None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    def keys(text: str) -> None:
        ActionChains(driver).send_keys(text).perform()

    def arrive(path: str) -> None:
        WebDriverWait(driver, 15).until(lambda d: d.current_url.split("?")[0].endswith(path))

    try:
        labelling = Labelling(workspace.rows, workspace.labels, seed=0)
        with ReviewServer(workspace, labelling) as server:
            driver.get(server.url)
            arrive("/")
            driver.save_screenshot(str(shots / "1-start.png"))
            driver.get(server.base + "/testset/0")
            driver.save_screenshot(str(shots / "2-testset.png"))
            keys("e")
            driver.save_screenshot(str(shots / "3-edit.png"))
            keys(Keys.ESCAPE + "r")
            driver.save_screenshot(str(shots / "4-reject.png"))
            driver.get(server.base + "/")
            driver.find_element(By.ID, "labeller").send_keys("bench", Keys.ENTER)
            arrive("/label/bench/0")
            driver.save_screenshot(str(shots / "5-label.png"))
            typed, times = 0, []
            started = time.perf_counter()
            for row in range(args.rows):
                began = time.perf_counter()
                text = KEYS[row % len(KEYS)]
                keys(text)
                if row == 0:
                    driver.save_screenshot(str(shots / "6-label-keyed.png"))
                keys(Keys.ENTER)
                typed += len(text) + 1
                arrive("/done" if row + 1 == len(labelling.order) else f"/{row + 1}")
                times.append(time.perf_counter() - began)
            total = time.perf_counter() - started
            driver.save_screenshot(str(shots / "7-after.png"))
    finally:
        driver.quit()
    labelled = len(workspace.labels.read_text().splitlines())
    print(f"labelled {labelled} rows by keyboard: {typed} keystrokes ({typed / args.rows:.1f} a row)")
    print(f"wall time {total:.2f} s: {total / args.rows:.3f} s a row (median {sorted(times)[len(times) // 2]:.3f} s, "
          f"slowest {max(times):.3f} s), page load + keys + save; reading time comes on top")  # fmt: skip
    print(f"screenshots: {shots}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
