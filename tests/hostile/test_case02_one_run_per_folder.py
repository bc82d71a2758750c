"""Case 2: two runs on one --out never mix. The folder is locked for the whole run (an OS-level lock, released
when the process dies): started together, one run runs and the other is refused with a message naming the
holder; a kill -9 leaves no stale lock; a run prints its own results, never the summary it finds on disk."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from ragtest.cli import main
from ragtest.config import RunConfig
from ragtest.console import describe_run
from ragtest.outputs import testset_identity as identity_of_testset
from ragtest.run_lock import HOLDER_FILE, FolderInUseError, RunLock
from ragtest.run_state import RunState
from ragtest_core.datasets import read_dataset, read_jsonl
from tests.hostile.conftest import kill_when, ragtest_process

TOPICS = ("Brown bear", "Polar bear")


def run_args(topic: str, out: Path, wiki_dir: Path) -> list[str]:
    return ["--quiet", "run", "--topic", topic, "--wiki-cache", str(wiki_dir), "--offline", "--size", "2",
            "--seed", "5", "--metrics", "hit_rate,faithfulness", "--out", str(out)]  # fmt: skip


def assert_one_consistent_run(out: Path, topic: str) -> None:
    """Every file of the folder comes from the one run on `topic`."""
    testset = read_jsonl(out / "testset.jsonl")
    answers = read_jsonl(out / "answers.jsonl")
    scores = read_dataset(out / "scores.jsonl")
    assert {row["source"] for row in testset} == {topic}
    questions = [row["question"] for row in testset]
    assert [row["question"] for row in answers] == questions and list(scores["question"]) == questions
    summary = json.loads((out / "summary.json").read_text())
    assert summary["testset"] == identity_of_testset(scores)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["sources"]["topic"] == topic
    assert f"test set fingerprint {summary['testset']['fingerprint']}" in (out / "report.md").read_text()
    assert not list(out.glob("*.partial.jsonl"))


def test_two_runs_started_together_on_one_out(tmp_path: Path, wiki_dir: Path) -> None:
    out = tmp_path / "run"
    processes = [ragtest_process(run_args(topic, out, wiki_dir), cwd=tmp_path) for topic in TOPICS]
    results = [(process, *process.communicate(timeout=300)) for process in processes]
    codes = sorted(process.returncode for process, _, _ in results)
    assert codes == [0, 2], [(p.returncode, err[-1500:]) for p, _, err in results]
    (winner, printed, _), (_, _, refused) = sorted(results, key=lambda r: r[0].returncode)
    assert "is in use by another ragtest run" in refused and "one run at a time per folder" in refused
    topic = TOPICS[processes.index(winner)]
    assert_one_consistent_run(out, topic)
    summary = json.loads((out / "summary.json").read_text())
    mean = summary["metrics"]["hit_rate"]["mean"]
    assert f"hit_rate                {mean:.3f}" in printed  # the winner printed its own scores


def test_a_second_run_is_refused_while_the_first_works_and_a_kill_leaves_no_stale_lock(
    tmp_path: Path, wiki_dir: Path
) -> None:
    out = tmp_path / "run"
    first = ragtest_process(run_args(TOPICS[0], out, wiki_dir), cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not (out / HOLDER_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    second = ragtest_process(run_args(TOPICS[1], out, wiki_dir), cwd=tmp_path)
    _, refused = second.communicate(timeout=300)
    assert second.returncode == 2 and "is in use by another ragtest run" in refused
    assert f"pid {first.pid}" in refused and TOPICS[0] in refused  # it names the run that holds the folder
    kill_when(first, lambda: True)  # kill -9 while it holds the lock
    assert main(run_args(TOPICS[1], out, wiki_dir)) == 0  # no stale lock: the next run proceeds
    assert_one_consistent_run(out, TOPICS[1])


def test_a_run_prints_its_own_summary_not_the_file_on_disk(tmp_path: Path) -> None:
    state = RunState(config=RunConfig(), run_dir=tmp_path)
    state.summary = {"rows": 3, "metrics": {"hit_rate": {"mean": 0.25, "rows_scored": 3}}}
    (tmp_path / "summary.json").write_text(json.dumps({"rows": 9, "metrics": {"hit_rate": {"mean": 0.75}}}))
    text = describe_run(state)
    assert "questions: 3" in text and "0.250" in text and "0.750" not in text


def test_the_lock_is_reentrant_for_one_run_and_refuses_another_thread(tmp_path: Path) -> None:
    """The stages of one run share the lock (same thread); a run in another thread of the process is refused."""
    outer = RunLock(tmp_path).acquire()
    inner = RunLock(tmp_path).acquire()
    refused: list[str] = []

    def other_run() -> None:
        try:
            RunLock(tmp_path).acquire()
        except FolderInUseError as exc:
            refused.append(str(exc))

    thread = threading.Thread(target=other_run)
    thread.start()
    thread.join()
    assert refused and "is in use by another ragtest run" in refused[0]
    inner.release()
    assert (tmp_path / HOLDER_FILE).exists()  # still held by the outer stage
    outer.release()
    assert not (tmp_path / HOLDER_FILE).exists()
    RunLock(tmp_path).acquire().release()  # free again
