"""The README's Python example runs as written (offline, on the page cache)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    examples = [block for block in blocks if block.startswith("import ragtest")]
    assert examples, "the README lost its `import ragtest` example"
    return examples[0]


def test_readme_python_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _python_example().replace('"examples/wikipedia"', repr(str(README.parent / "examples" / "wikipedia")))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    assert (tmp_path / "runs" / "api" / "answers.jsonl").is_file()
    out = capsys.readouterr().out
    assert "faithfulness" in out and "mean" in out
