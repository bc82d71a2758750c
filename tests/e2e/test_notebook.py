"""The walk-through notebook runs end to end offline."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "walkthrough.ipynb"


@pytest.mark.slow
def test_walkthrough_notebook_runs(tmp_path: Path, wiki_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("RAGTEST_WIKI_CACHE", str(wiki_dir))
    monkeypatch.setenv("RAGTEST_NOTEBOOK_RUN", str(tmp_path / "run"))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()
    assert (tmp_path / "run" / "answers.jsonl").is_file()
