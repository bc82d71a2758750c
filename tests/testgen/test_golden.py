"""The offline writer's golden outputs (tests/testgen/golden/*.json: sentences turned by the rules, documentation
headings, items, statements and pages) match what the code gives now; the update command rewrites them and shows the
diff, so re-tuning a rule is a reviewed change of those files."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.testgen.golden import FOLDER, Case, dump, files, load, run, update
from tests.testgen.golden.__main__ import main

CASES = [(path.name, number, case) for path in files() for number, case in enumerate(load(path))]


@pytest.mark.parametrize(
    ("name", "number", "case"), CASES, ids=[f"{name}:{number}:{case['kind']}" for name, number, case in CASES]
)
def test_golden_case(name: str, number: int, case: Case) -> None:
    assert run(case) == case["expected"], (
        f"{name} case {number} ({case['why']}) changed: run `python -m tests.testgen.golden update` and review the diff"
    )


def test_every_strategy_has_golden_cases_that_say_why() -> None:
    assert {path.name for path in files()} == {"docs.json", "sentences.json"}
    assert len(CASES) > 150 and all(case.get("why") for _, _, case in CASES)
    assert {case["kind"] for _, _, case in CASES} >= {"turn", "task", "instruction", "default", "option", "page"}


def _stale_copy(tmp_path: Path) -> tuple[Path, Case]:
    """A golden file holding one real case whose recorded pair the code no longer gives."""
    case = next(
        c for c in load(FOLDER / "sentences.json") if c.get("sentence") == "Guido van Rossum created Python in 1991."
    )
    stale = {**case, "expected": {"questions": [["Who wrote Python?", "Guido van Rossum"]]}}
    path = tmp_path / "sentences.json"
    path.write_text(dump([stale]), encoding="utf-8")
    return path, case


def _lines(diff: str, sign: str) -> str:
    """The lines a unified diff removes ("-") or adds ("+"), without the file headers."""
    return "\n".join(line for line in diff.splitlines() if line.startswith(sign) and not line.startswith(sign * 3))


def test_update_writes_the_current_pairs_and_shows_the_diff(tmp_path: Path) -> None:
    path, case = _stale_copy(tmp_path)
    shown = io.StringIO()
    assert update([path], out=shown) == 1
    diff = shown.getvalue()
    assert diff.startswith(f"--- {path} (before)")
    assert '["Who wrote Python?", "Guido van Rossum"]' in _lines(diff, "-")
    assert '["Who created Python?", "Guido van Rossum"]' in _lines(diff, "+")
    assert load(path) == [case]  # written: the file now holds what the code gives
    again = io.StringIO()
    assert update([path], out=again) == 0 and again.getvalue() == ""


def test_the_command_line_dry_run_shows_the_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _stale_copy(tmp_path)
    before = path.read_text(encoding="utf-8")
    assert main(["update", str(path), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert '["Who created Python?", "Guido van Rossum"]' in _lines(captured.out, "+")
    assert "1 case(s) changed (not written)" in captured.err
    assert path.read_text(encoding="utf-8") == before
