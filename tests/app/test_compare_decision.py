"""compare's one decision rule, through the CLI on runs scored by `ragtest evaluate` (hit_rate and mrr: no model):
the table's verdict and the gate agree on the same data, floating-point noise is a tie (no changed row, no
p-value, a passing gate), and a row is listed as changed only when its shown score changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluation.compare_stats import BETTER, BORDERLINE, NO_CHANGE, TOO_FEW, UNCHANGED, WORSE, paired_stats
from ragtest.cli import main
from ragtest.comparison import shown_score, shows_changed
from ragtest.gates import GateRule, change_gate
from ragtest.outputs import write_rows
from ragtest_core.datasets import read_jsonl

ROWS = 15


def scored_run(folder: Path, misses: set[int]) -> Path:
    """A run folder scored by `ragtest evaluate`: row i retrieves its gold chunk first unless i is in `misses`."""
    rows = [
        {
            "sample_id": f"s{i}",
            "question": f"Where is fact {i}?",
            "ground_truth": f"Fact {i} is in chunk {i}.",
            "reference_contexts": [f"Fact {i} is in chunk {i}."],
            "reference_context_ids": [f"c{i}"],
            "answer": f"In chunk {i}.",
            "contexts": ["Noise.", "More noise."] if i in misses else [f"Fact {i} is in chunk {i}.", "Noise."],
            "context_ids": ["n1", "n2"] if i in misses else [f"c{i}", "n1"],
        }
        for i in range(ROWS)
    ]
    folder.mkdir(parents=True)
    write_rows(rows, folder / "answers.jsonl")
    args = ["evaluate", "--quiet", "--input", str(folder / "answers.jsonl"), "--metrics", "hit_rate,mrr"]
    assert main([*args, "--output", str(folder / "scores.jsonl")]) == 0
    return folder


def compared(base: Path, new: Path, out: Path, capsys: pytest.CaptureFixture[str], *gate: str) -> tuple[int, str, Any]:
    capsys.readouterr()
    code = main(["compare", str(base), str(new), "--out", str(out), *gate])
    return code, capsys.readouterr().out, json.loads((out / "compare.json").read_text())


def table_line(printed: str, metric: str) -> str:
    return next(line for line in printed.splitlines() if line.startswith(f"{metric} "))


def test_the_table_and_the_gate_agree_on_five_changed_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = scored_run(tmp_path / "base", misses=set())
    few = scored_run(tmp_path / "few", misses={0, 3, 6, 9, 12})  # W/L/T 0/5/10: the new user's case
    code, printed, data = compared(base, few, tmp_path / "c1", capsys, "--fail-if", "hit_rate<-0.05")
    hit = data["metrics"]["hit_rate"]["overall"]
    assert (hit["wins"], hit["losses"], hit["ties"]) == (0, 5, 10) and hit["verdict"] == TOO_FEW
    assert hit["ci_high"] < -0.05  # the interval alone would call it a drop past the threshold ...
    assert hit["p_value"] == pytest.approx(2 / 32)  # ... the exact test over the 5 changed rows cannot
    assert "0/5/10" in table_line(printed, "hit_rate") and TOO_FEW in table_line(printed, "hit_rate")
    assert code == 0 and "gate: passed" in printed  # so the gate, judging by the same rule, passes
    assert "W/L/T 0/5/10: too few changed rows)" in printed and "FAIL" not in printed

    many = scored_run(tmp_path / "many", misses=set(range(9)))  # 9 of 15 rows lose their gold chunk
    code, printed, data = compared(base, many, tmp_path / "c2", capsys, "--fail-if", "hit_rate<-0.05")
    assert data["metrics"]["hit_rate"]["overall"]["verdict"] == WORSE and WORSE in table_line(printed, "hit_rate")
    assert code == 1 and "hit_rate < -0.05: FAIL, a significant drop" in printed
    code, printed, _ = compared(base, many, tmp_path / "c3", capsys, "--fail-if", "hit_rate<-0.9")
    assert code == 0 and "hit_rate < -0.9: pass (change" in printed  # significant, but not past the threshold
    assert "W/L/T 0/9/6: worse)" in printed


def test_floating_point_noise_is_no_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = scored_run(tmp_path / "base", misses={1, 2, 5})
    noisy = tmp_path / "noisy"
    shutil.copytree(base, noisy)
    rows = read_jsonl(noisy / "scores.jsonl")
    rng = np.random.default_rng(0)
    for row in rows:  # what another machine's arithmetic gives: the same scores to about 1e-10
        row["mrr"] = row["mrr"] + float(rng.choice([-1, 1])) * 1e-10
    assert any(f"{row['mrr']:.2f}" == "-0.00" for row in rows)  # a 0.0 that became -1e-10
    (noisy / "scores.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, printed, data = compared(base, noisy, tmp_path / "c", capsys, "--fail-if", "mrr<0,hit_rate<0")
    mrr = data["metrics"]["mrr"]["overall"]
    assert (mrr["wins"], mrr["losses"], mrr["ties"]) == (0, 0, ROWS) and mrr["verdict"] == UNCHANGED
    assert mrr["p_value"] is None and mrr["difference"] == 0.0  # no p-value from ties
    assert data["metrics"]["mrr"]["shown_up"] == data["metrics"]["mrr"]["shown_down"] == 0
    assert data["changed"]["mrr"] == []  # "0.00 -> -0.00" is no changed row
    line = table_line(printed, "mrr")
    assert "0/0/15" in line and UNCHANGED in line and " - " in line  # p shown as "-"
    assert code == 0 and "gate: passed (2 of 2" in printed and "-0.00" not in printed


def test_shown_scores_and_changed_rows() -> None:
    assert shown_score(-1e-10) == shown_score(0.0) == "0.00" and shown_score(-0.004) == "0.00"
    assert shown_score(0.996) == "1.00" and shown_score(-0.25) == "-0.25"
    assert not shows_changed(0.0, -1e-10) and not shows_changed(0.998, 1.0)
    assert not shows_changed(0.004999999999, 0.005000000001)  # shows 0.00 -> 0.01, but a tie: noise
    assert shows_changed(0.0, 0.5) and shows_changed(1.0, 0.99)


@pytest.mark.parametrize("seed", range(40))
def test_the_gate_fails_only_where_the_table_says_worse(seed: int) -> None:
    """Random paired scores with ties, noise and real changes: a `<` rule fails only on a "worse" verdict, and at
    threshold 0 it fails exactly where the table says "worse"."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    base = rng.choice([0.0, 0.5, 1.0], n)
    changed = rng.random(n) < rng.uniform(0.05, 0.9)
    shift = rng.normal(rng.uniform(-0.5, 0.3), 0.3, n)
    new = np.clip(np.where(changed, base + shift, base + rng.normal(0, 1e-10, n)), 0, 1)
    stats = paired_stats(list(base), list(new), seed=seed)
    assert stats.ci_low is not None and stats.ci_high is not None
    assert stats.verdict in (BETTER, WORSE, BORDERLINE, NO_CHANGE, TOO_FEW, UNCHANGED)
    for threshold in (0.0, -0.05, -0.2):
        gate = change_gate(GateRule("m", threshold), stats.direction, stats.ci_low, stats.ci_high, "")
        if not gate.passed:
            assert stats.verdict == WORSE, (threshold, stats)
        if threshold == 0.0:
            assert gate.passed == (stats.verdict != WORSE), stats
    rise = change_gate(GateRule("m", 0.0, ">"), stats.direction, stats.ci_low, stats.ci_high, "")
    assert rise.passed == (stats.verdict != BETTER), stats
