"""Case 7: `--rag` no longer lets the current folder shadow other imports. A `unittest.py` in the folder used to
run when numpy.testing was imported through scipy, during a run whose adapter was another module. Now the adapter
module comes from the current folder, its own helper modules beside it import, and the folder is searched after
the standard library and installed packages, so the stray file never runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ragtest_core.datasets import read_jsonl

STRAY = """
from pathlib import Path
Path("SHADOWED").write_text("the stray unittest.py ran")
raise ImportError("the stray unittest.py was imported")
"""
ADAPTER = """
import unittest  # the standard library's, not ./unittest.py

import scipy.stats  # imports numpy.testing, which imports unittest

from echo_helper import shout  # a helper module beside the adapter still imports


class Echo:
    def answer(self, question):
        assert hasattr(unittest, "TestCase")
        return {"answer": shout(question), "contexts": ["a context"]}
"""


def ragtest_command() -> list[str]:
    """The `ragtest` console script (it does not put the current folder on sys.path, as `python -m` would)."""
    script = Path(sys.executable).with_name("ragtest")
    return [str(script)] if script.is_file() else [sys.executable, "-P", "-m", "ragtest.cli"]


def test_a_stray_module_in_the_current_folder_never_runs(tmp_path: Path) -> None:
    (tmp_path / "unittest.py").write_text(STRAY)
    (tmp_path / "echo_rag.py").write_text(ADAPTER)
    (tmp_path / "echo_helper.py").write_text("def shout(text):\n    return text.upper()\n")
    (tmp_path / "t.jsonl").write_text(json.dumps({"question": "where do bears live?"}) + "\n")
    args = ["--quiet", "answer", "--input", "t.jsonl", "--output", "out/a.jsonl", "--rag", "echo_rag:Echo"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([*ragtest_command(), *args], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "SHADOWED").exists()
    assert read_jsonl(tmp_path / "out" / "a.jsonl")[0]["answer"] == "WHERE DO BEARS LIVE?"
