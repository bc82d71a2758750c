"""ragas compatibility both ways: ragtest reads ragas' column names (FiQA), and `--columns ragas` writes a file
that ragas' own `EvaluationDataset.from_list` reads with no renaming.

ragas 0.4.3 (with langchain-community 0.4.1, which it needs) lives in its own venv, `.venv-ragas` at the project
root, built on first use by `bench.ragas_venv` (about a minute) and reused while its stamp matches. The test
never skips: set RAGTEST_SKIP_RAGAS=1 to opt out on a machine without a package index.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bench.ragas_venv import build_ragas_venv
from ragtest.cli import main
from ragtest_core.datasets import read_dataset, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
READ_WITH_RAGAS = """
import json, sys
from ragas import EvaluationDataset
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
dataset = EvaluationDataset.from_list(rows)
fields = ("user_input", "response", "retrieved_contexts", "reference")
print(json.dumps([{f: getattr(s, f) for f in fields} for s in dataset.samples]))
"""


@pytest.fixture(scope="session")
def ragas_python() -> Path:
    if os.environ.get("RAGTEST_SKIP_RAGAS"):
        pytest.skip("RAGTEST_SKIP_RAGAS is set")
    try:
        return build_ragas_venv()
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.mark.timeout(1200)
def test_ragas_reads_our_output_with_no_renaming(ragas_python: Path, test_data: Path, tmp_path: Path) -> None:
    fiqa = test_data / "fiqa" / "fiqa.jsonl"
    out = tmp_path / "fiqa-scored.jsonl"
    args = ["evaluate", "--quiet", "--input", str(fiqa), "--metrics", "token_f1,exact_match", "--columns", "ragas"]
    assert main([*args, "--output", str(out)]) == 0
    written = read_jsonl(out)
    assert {"user_input", "response", "retrieved_contexts", "reference", "token_f1"} <= set(written[0])
    assert not {"question", "answer", "contexts", "ground_truth"} & set(written[0])

    env = {**os.environ, "RAGAS_DO_NOT_TRACK": "true", "PYTHONPATH": ""}
    result = subprocess.run(
        [str(ragas_python), "-c", READ_WITH_RAGAS, str(out)], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    samples = json.loads(result.stdout.strip().splitlines()[-1])
    original = read_jsonl(fiqa)
    assert len(samples) == len(original) == 30
    for sample, row in zip(samples, original, strict=True):
        assert sample["user_input"] == row["user_input"] and sample["response"] == row["response"]
        assert sample["retrieved_contexts"] == row["retrieved_contexts"]
        assert sample["reference"] == "\n".join(row["reference"])

    again = read_dataset(out)  # and ragtest reads its own ragas-named output back
    assert {"question", "answer", "contexts", "ground_truth"} <= set(again.columns)
