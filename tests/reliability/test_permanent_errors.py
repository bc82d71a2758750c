"""A permanent LLM error (401: bad key) ends the run at once: exit code 2, a clear message, no traceback, and no
final file written half-way."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtest.cli import EXIT_USAGE, main
from tests.reliability.conftest import FINAL_FILES, manifest, run_args
from tests.stubs.openai_server import FaultKind, OpenAIStubServer, StubRequest

LATER_FILES = ("manifest.json", "report.md", "report.html")


def test_401_at_the_first_call_stops_the_run(
    server: OpenAIStubServer, new_run_dir, wiki_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.fault_rates["unauthorized"] = 1.0
    run_dir = new_run_dir()

    assert main(run_args(run_dir, wiki_dir, server.url)) == EXIT_USAGE

    err = capsys.readouterr().err
    assert "authentication failed (401)" in err and "RAGTEST_LLM_API_KEY" in err
    assert "Traceback" not in err
    assert server.request_count <= 8  # the calls already in flight at most (--llm-concurrency 8), then no more
    for name in (*FINAL_FILES, *LATER_FILES):
        assert not (run_dir / name).exists(), name
    assert not list(run_dir.glob("*.tmp"))


@pytest.mark.parametrize(
    ("revoked_at", "written"),
    [
        ("Answer the question using only", ("testset.jsonl",)),
        ("break down each sentence", ("testset.jsonl", "answers.jsonl")),
    ],
)
def test_401_mid_run_keeps_finished_stages_and_writes_nothing_half_way(
    server: OpenAIStubServer,
    new_run_dir,
    wiki_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    revoked_at: str,
    written: tuple[str, ...],
) -> None:
    """The key is revoked when the first RAG answer prompt (answer stage) or judge prompt (evaluate) arrives."""
    revoked: list[int] = []

    def revoke(request: StubRequest) -> FaultKind | None:
        if revoked or revoked_at in request.prompt:
            revoked.append(request.index)
            return "unauthorized"
        return None

    monkeypatch.setattr(server, "fault_when", revoke)
    run_dir = new_run_dir()

    assert main([*run_args(run_dir, wiki_dir, server.url), "--llm-concurrency", "2"]) == EXIT_USAGE

    err = capsys.readouterr().err
    assert "authentication failed (401)" in err and "Traceback" not in err
    assert len(revoked) <= 2  # the calls in flight (--llm-concurrency 2), then no more requests
    for name in (*FINAL_FILES, *LATER_FILES):
        assert (run_dir / name).exists() == (name in written), name
    with pytest.raises(FileNotFoundError):
        manifest(run_dir)
