"""The demo as `make demo` runs it (the Python article shipped in examples/wikipedia, offline, 20 questions), for
the tests that read a real run's report."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from ragtest.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO_CACHE = ROOT / "examples" / "wikipedia"
TOPIC = "Python (programming language)"


def ragtest(*args: str) -> str:
    """Run the command line in this process; what it printed on stdout (it must exit 0)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["--quiet", *args])
    assert code == 0, printed.getvalue()[-2000:]
    return printed.getvalue()


def run_demo(out: Path, *extra: str) -> str:
    """`make demo` into `out`; what it printed."""
    source = ["--topic", TOPIC, "--wiki-cache", str(DEMO_CACHE), "--offline"]
    return ragtest("run", *source, "--size", "20", "--out", str(out), *extra)
