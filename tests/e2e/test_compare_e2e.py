"""Done when: two variants of a RAG on one test set give a compare table whose direction and significance agree
with an independent paired bootstrap, and the gate's exit code says so. The variants: the reference RAG and the
same RAG answering from the wrong chunks (tests/e2e/degraded_rag.py), on 15 questions about the Python article."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragtest.cli import main
from ragtest_core.datasets import read_jsonl
from tests.e2e.conftest import METRICS, TwoVariants


def paired(two_variants: TwoVariants, metric: str) -> np.ndarray:
    """new - base for `metric`, rows paired by sample_id, both sides scored."""
    base = {r["sample_id"]: r[metric] for r in read_jsonl(two_variants.base)}
    new = {r["sample_id"]: r[metric] for r in read_jsonl(two_variants.new)}
    keys = [k for k in base if k in new and base[k] is not None and new[k] is not None]
    return np.array([new[k] - base[k] for k in keys])


def independent_bootstrap(differences: np.ndarray, resamples: int = 10_000) -> tuple[float, float]:
    """A plain percentile bootstrap of the mean difference, resampling pairs with numpy (not scipy)."""
    rng = np.random.default_rng(123)
    means = differences[rng.integers(0, differences.size, (resamples, differences.size))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def exact_sign_flip(differences: np.ndarray) -> float:
    """Two-sided p of the mean difference over every sign assignment of the changed rows."""
    changed = differences[np.abs(differences) > 1e-9]
    if changed.size == 0:
        return 1.0
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=changed.size)))
    means = np.abs((signs * changed).sum(axis=1))
    return float(np.mean(means >= abs(changed.sum()) - 1e-9))


def run_compare(base: Path, new: Path, out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["compare", str(base), str(new), "--out", str(out), *extra])
    return code, json.loads((out / "compare.json").read_text()) if (out / "compare.json").exists() else {}


def test_direction_and_significance_agree_with_an_independent_bootstrap(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = run_compare(two_variants.base, two_variants.new, tmp_path, "--fail-if", "hit_rate<-0.05")
    printed = capsys.readouterr().out
    assert code == 1, printed  # the gate: hit rate dropped significantly by more than 0.05
    assert "gate: FAILED" in printed and "worse on" in printed and "hit_rate" in printed
    agreed, borderline = [], []
    for metric in METRICS.split(","):
        differences = paired(two_variants, metric)
        overall = data["metrics"][metric]["overall"]
        assert overall["n"] == differences.size == 15
        assert overall["difference"] == pytest.approx(differences.mean())  # direction and size
        low, high = independent_bootstrap(differences)
        p_value = exact_sign_flip(differences)
        excludes_zero = low > 0 or high < 0
        if excludes_zero != (p_value < 0.05) or overall["verdict"] == "borderline":
            borderline.append((metric, low, high, p_value, overall["verdict"]))
            continue
        assert (overall["verdict"] in ("better", "worse")) == excludes_zero, (metric, low, high, p_value, overall)
        if excludes_zero:
            assert overall["verdict"] == ("worse" if high < 0 else "better")
        agreed.append(metric)
    print(f"agreed on {agreed}; borderline (independent interval and test disagree): {borderline}")
    assert len(agreed) >= 6 and {"hit_rate", "mrr"} <= set(agreed)
    assert data["metrics"]["hit_rate"]["overall"]["verdict"] == "worse"
    assert data["changed"]["hit_rate"] and data["changed"]["hit_rate"][0]["base_answer"]
    html = (tmp_path / "compare.html").read_text()
    assert "Rows that changed most" in html and "base answer" in html and "new answer" in html


def test_gate_passes_when_nothing_dropped_significantly(two_variants: TwoVariants, tmp_path: Path) -> None:
    code, data = run_compare(two_variants.new, two_variants.base, tmp_path / "up", "--fail-if", "hit_rate<-0.05")
    assert code == 0 and data["metrics"]["hit_rate"]["overall"]["verdict"] == "better"
    code, _ = run_compare(two_variants.base, two_variants.new, tmp_path / "r", "--fail-if", "answer_relevancy<-0.4")
    assert code == 0  # answer relevancy dropped (about -0.42 [-0.63, -0.20]), but not beyond -0.4 past the noise
    code, _ = run_compare(two_variants.base, two_variants.new, tmp_path / "u", "--fail-if", "no_such_metric<-0.1")
    assert code == 2


def test_evaluate_fail_under(two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for side, expected in (("new", 1), ("base", 0)):
        args = ["evaluate", "--quiet", "--input", str(two_variants.answers(side)), "--metrics", "hit_rate,mrr"]
        code = main([*args, "--output", str(tmp_path / f"{side}.jsonl"), "--fail-under", "hit_rate=0.5"])
        assert code == expected, capsys.readouterr().out
    assert main(["evaluate", "--input", str(two_variants.answers("new")), "--fail-under", "hit_rate=0.5"]) == 2


def test_refuses_different_test_sets_or_settings(
    two_variants: TwoVariants, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shorter = tmp_path / "shorter" / "scores.jsonl"
    shorter.parent.mkdir()
    rows = read_jsonl(two_variants.new)
    shorter.write_text("".join(json.dumps(row) + "\n" for row in rows[1:]))
    shutil.copy(two_variants.new.with_name("summary.json"), shorter.with_name("summary.json"))
    assert main(["compare", str(two_variants.base), str(shorter), "--out", str(tmp_path / "c1")]) == 2
    error = capsys.readouterr().err
    assert "different question sets" in error and rows[0]["question"][:40] in error and "Traceback" not in error
    code, data = run_compare(two_variants.base, shorter, tmp_path / "c2", "--allow-different")
    assert code == 0 and data["only_base"] == [rows[0]["question"]] and data["matched"] == 14
    assert any("different question sets" in note for note in data["notes"])

    other = tmp_path / "other" / "scores.jsonl"
    other.parent.mkdir()
    shutil.copy(two_variants.new, other)
    summary = json.loads(two_variants.new.with_name("summary.json").read_text())
    summary["scoring"]["embedding_model"] = "some-other-model"
    other.with_name("summary.json").write_text(json.dumps(summary))
    assert main(["compare", str(two_variants.base), str(other), "--out", str(tmp_path / "c3")]) == 2
    assert "different embedding model" in capsys.readouterr().err
