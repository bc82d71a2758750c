"""`make demo` on a copy of the repository with nothing beside it: the demo's page ships inside."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def repository_files() -> list[str]:
    """Tracked files plus new ones git does not ignore: what a clone of this working tree would hold."""
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listing.stdout.splitlines() if (ROOT / name).is_file()]


def test_make_demo_runs_on_a_clone_with_no_shared_data_beside_it(tmp_path: Path) -> None:
    clone = tmp_path / "elsewhere" / "ragtest"
    for name in repository_files():
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    assert not (clone.parent / "shared").exists()
    venv = Path(sys.prefix)  # this suite's venv: installing again is `make install`'s job, not this test's
    stamp = venv / ".installed"
    done = subprocess.run(
        ["make", "-o", str(stamp), "demo", f"VENV={venv}"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    run = clone / "runs" / "python"
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["rows"] == 20
    assert (run / "report.html").is_file()
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    [source] = manifest["stats"]["sources"]
    assert source["source"] == "Python (programming language)" and source["origin"] == "cache"
