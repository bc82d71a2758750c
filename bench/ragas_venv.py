"""ragas 0.4.3 in its own virtual environment, `.venv-ragas` at the project root, built once and reused.

ragas 0.4.3 needs langchain-community 0.4.1, so it stays out of the project's environment. The venv sees this
interpreter's packages through a .pth file, so only ragas and the few packages it pins differently are installed
into it (about a minute). Shared by tests/e2e/test_ragas_compat.py and bench/judge_bench.py.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-ragas"
PINS = ("ragas==0.4.3", "langchain-community==0.4.1")


def venv_python(venv: Path = VENV) -> Path:
    return venv / "bin" / "python"


def build_ragas_venv(venv: Path = VENV) -> Path:
    """The venv's python, (re)building the venv when its stamp (pins and base packages) differs.
    RuntimeError when the pins cannot be installed (no package index)."""
    base = sysconfig.get_paths()["purelib"]
    stamp, expected = venv / ".ragtest-stamp", "\n".join([*PINS, base])
    if stamp.is_file() and stamp.read_text() == expected and venv_python(venv).exists():
        return venv_python(venv)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
    own = subprocess.run(
        [str(venv_python(venv)), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(own) / "_ragtest_base.pth").write_text(base + "\n")
    result = subprocess.run(
        [str(venv_python(venv)), "-m", "pip", "install", "-q", "--disable-pip-version-check", *PINS],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if result.returncode != 0:
        raise RuntimeError(f"could not install {' '.join(PINS)} into {venv}:\n{result.stderr[-3000:]}")
    stamp.write_text(expected)
    return venv_python(venv)
