"""A stop rule is declared once: a field of `testgen.GenerationSettings` with its use in a method the scheduler
consults (`why_stop`). Here a new rule is added in one place, a subclass put in the declaration's stead before
ragtest is imported (in a fresh process), and found in `ragtest generate --help`, consulted by the scheduler (the
type it stops is named in the warnings and the shortfall's advice) and recorded in the manifest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The one place the new rule is written: its field (type, default, validation, help) and its use.
ADD_THE_RULE = """
import sys
from typing import Annotated

from pydantic import Field

import testgen
import testgen.settings


class WithContextBudget(testgen.settings.GenerationSettings):
    context_budget: Annotated[
        int | None, Field(ge=1, description="contexts a question type may write before it stops early")
    ] = None

    def why_stop(self, produced: int, tried: int) -> str | None:
        if self.context_budget is not None and tried >= self.context_budget:
            return f"its budget of {self.context_budget} contexts is spent"
        return super().why_stop(produced, tried)


testgen.settings.GenerationSettings = testgen.GenerationSettings = WithContextBudget

from ragtest.cli import main

sys.exit(main(sys.argv[1:]))
"""


def _ragtest(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RAGTEST_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-c", ADD_THE_RULE, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_stop_rule_added_in_one_place_reaches_help_the_scheduler_and_the_manifest(
    tmp_path: Path, test_data: Path
) -> None:
    shown = _ragtest(["generate", "--help"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "--context-budget N contexts a question type may write before it stops early (default: none)" in " ".join(
        shown.stdout.split()
    )

    refused = _ragtest(["generate", "--source", str(test_data / "docs" / "httpx"), "--context-budget", "0"], tmp_path)
    assert refused.returncode == 2 and "--context-budget must be at least 1, got 0" in refused.stderr

    output = tmp_path / "run" / "testset.jsonl"
    args = ["--quiet", "generate", "--source", str(test_data / "docs" / "httpx" / "quickstart.md"), "--offline"]
    args += ["--size", "12", "--question-types", "simple", "--context-budget", "2", "--allow-fewer"]
    made = _ragtest([*args, "--output", str(output)], tmp_path)
    assert made.returncode == 0, made.stderr
    manifest = json.loads(output.with_name("testset.manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["generation"]["context_budget"] == 2
    generation = manifest["stats"]["generation"]
    assert "question type 'simple': its budget of 2 contexts is spent; stopped early" in generation["warnings"]
    assert generation["roots_drawn"] >= 2 and 0 < generation["accepted"] < 12
    assert "types_stopped_early" in manifest["stats"]["testset_partial"]["advice"]
