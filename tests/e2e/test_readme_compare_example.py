"""The README's pytest example (ragtest.testing) runs as written, on two real scored runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import TwoVariants

README = Path(__file__).resolve().parents[2] / "README.md"


def _pytest_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    examples = [block for block in blocks if block.startswith("from ragtest.testing import")]
    assert examples, "the README lost its ragtest.testing example"
    return examples[0]


def _test_function(baseline: Path, candidate: Path):  # type: ignore[no-untyped-def]
    code = (
        _pytest_example()
        .replace('"runs/baseline"', repr(str(baseline)))
        .replace('"runs/candidate"', repr(str(candidate)))
    )
    namespace: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace["test_rag_has_not_regressed"]


def test_readme_pytest_example(two_variants: TwoVariants, tmp_path: Path) -> None:
    same = tmp_path / "same" / "scores.jsonl"  # the baseline scored again: no regression, passes
    same.parent.mkdir()
    shutil.copy(two_variants.base, same)
    shutil.copy(two_variants.base.with_name("summary.json"), same.with_name("summary.json"))
    _test_function(two_variants.base, same)()
    with pytest.raises(AssertionError, match="gate: FAILED"):  # the degraded RAG: its hit rate dropped
        _test_function(two_variants.base, two_variants.new)()
