"""Prediction-powered means: the same numbers as the reference implementation (ppi-python), intervals that cover
at the nominal level with a biased judge, and narrower than the labels alone when the judge correlates with them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bench.ppi_coverage import simulate
from evaluation.labelled import match_labels, ppi_summaries
from evaluation.ppi import combined_difference, ppi_batch, ppi_mean
from ragtest_core.labels import answer_id

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python is a dev dependency (pip install -e '.[dev]')")


def draw(seed: int, n: int, big_n: int, graded: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = 0.85 * rng.beta(3, 2, n + big_n)
    human = np.round(2 * np.clip(q + rng.normal(0, 0.15, q.size), 0, 1)) / 2 if graded else (rng.random(q.size) < q)
    judge = np.clip(q + 0.1 + rng.normal(0, 0.1, q.size), 0, 1)
    return human[:n].astype(float), judge[:n], judge[n:]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("graded", [False, True])
def test_estimate_and_interval_match_ppi_python(seed: int, graded: bool) -> None:
    y, f, u = draw(seed, n=[30, 50, 200][seed % 3], big_n=[100, 1000, 400][seed % 3], graded=graded)
    reference_mean = float(np.asarray(ppi_py.ppi_mean_pointestimate(y, f, u)).ravel()[0])
    reference_low, reference_high = (float(np.asarray(v).ravel()[0]) for v in ppi_py.ppi_mean_ci(y, f, u, alpha=0.05))
    mean, low, high, _ = (float(v[0]) for v in ppi_batch(y[None], f[None], u[None]))
    assert mean == pytest.approx(reference_mean, abs=1e-6)
    assert low == pytest.approx(reference_low, abs=1e-6)
    assert high == pytest.approx(reference_high, abs=1e-6)
    estimate = ppi_mean(y, f, u)
    assert estimate is not None
    assert estimate.mean == pytest.approx(min(1.0, max(0.0, reference_mean)), abs=1e-6)
    labels_low, labels_high = ppi_py.classical_mean_ci(y, alpha=0.05)
    assert estimate.labels_ci_low == pytest.approx(max(0.0, labels_low), abs=1e-6)
    assert estimate.labels_ci_high == pytest.approx(min(1.0, labels_high), abs=1e-6)


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_fixed_lambda_matches_ppi_python(lam: float) -> None:
    y, f, u = draw(7, 60, 500, graded=False)
    reference = ppi_py.ppi_mean_ci(y, f, u, alpha=0.05, lam=lam)
    _, low, high, _ = ppi_batch(y[None], f[None], u[None], lam=lam)
    assert float(low[0]) == pytest.approx(float(np.ravel(reference[0])[0]), abs=1e-6)
    assert float(high[0]) == pytest.approx(float(np.ravel(reference[1])[0]), abs=1e-6)


@pytest.mark.parametrize("labels", [50, 200])
@pytest.mark.parametrize("graded", [False, True])
def test_coverage_with_a_judge_biased_by_a_tenth(labels: int, graded: bool) -> None:
    result = simulate(labels, unlabelled=1000, bias=0.1, graded=graded, repetitions=4000, seed=1)
    assert result.measured_bias == pytest.approx(0.1, abs=0.01)
    assert 0.93 <= result.ppi_coverage <= 0.97, result
    assert result.judge_coverage < 0.05  # the judge alone misses the humans' mean: its bias does not shrink
    assert result.ppi_width < result.labels_width  # the judge correlates with the labels: PPI is narrower
    assert result.ppi_narrower > 0.9


def test_uncorrelated_judge_falls_back_to_the_labels() -> None:
    rng = np.random.default_rng(3)
    y = (rng.random(80) < 0.6).astype(float)
    f, u = rng.random(80), rng.random(800)  # noise: power tuning gives it (almost) no weight
    estimate = ppi_mean(y, f, u)
    assert estimate is not None and estimate.lam < 0.2
    assert estimate.ci_high - estimate.ci_low <= (estimate.labels_ci_high - estimate.labels_ci_low) * 1.05


def test_edge_cases() -> None:
    assert ppi_mean([1.0], [0.9], [0.5, 0.6]) is None  # one label: no interval
    every = ppi_mean([1.0, 0.0, 1.0], [0.9, 0.2, 0.8], [])  # every row labelled: the labels' mean
    assert every is not None and every.mean == pytest.approx(2 / 3) and every.lam == 0.0
    flat = ppi_mean([1.0, 0.0, 1.0, 1.0], [0.7] * 4, [0.7] * 10)  # a constant judge carries nothing
    assert flat is not None and flat.lam == 0.0 and flat.mean == pytest.approx(0.75)
    base, new = ppi_mean(*draw(1, 50, 300, False)), ppi_mean(*draw(2, 50, 300, False))
    assert base is not None and new is not None
    change, low, high = combined_difference(base, new)
    assert low < change < high and change == pytest.approx(new.mean - base.mean)


def scored_frame(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sample_id": [f"s{i}" for i in range(rows)],
            "question": [f"Question {i}?" for i in range(rows)],
            "answer": [f"Answer {i}." for i in range(rows)],
            "contexts": [[f"Context {i}."] for i in range(rows)],
            "faithfulness": list(np.clip(rng.random(rows), 0, 1)),
        }
    )


def test_labels_are_matched_and_stale_or_non_random_rows_left_out() -> None:
    frame = scored_frame(30)
    rows = frame.to_dict(orient="records")
    labels = [
        {"sample_id": f"s{i}", "labeller": "ana", "faithfulness": float(i % 2), "answer_id": answer_id(rows[i])}
        for i in range(10)
    ]
    labels.append({"sample_id": "s10", "labeller": "ana", "faithfulness": 1.0, "answer_id": "changed-since"})
    labels.append({"sample_id": "s11", "labeller": "ana", "faithfulness": 0.0, "selection": "least_sure"})
    labels.append({"sample_id": "nowhere", "labeller": "ana", "faithfulness": 1.0})
    labels.append({"sample_id": "s0", "labeller": "ben", "faithfulness": 1.0})  # a second labeller on s0
    entry = match_labels(frame, labels)["faithfulness"]
    assert entry.stale == 1 and entry.unmatched == 1
    assert len(entry.labels) == 11 and entry.labels[0] == 0.5  # s0: the mean of ana (0) and ben (1)
    assert len(entry.unlabelled) == 30 - 11
    result = ppi_summaries(frame, labels, ["faithfulness"])["faithfulness"]
    assert result.estimate is not None and result.estimate.n_labels == 10
    assert "least sure" in result.note and "stale" in result.note
    summary = result.summary()
    assert summary is not None and set(summary) >= {"mean", "ci_low", "ci_high", "n_labels"}
