"""Short runs keep their work (issue 31): a generate that cannot reach --size writes the questions it made, marks the
set partial in its manifest with the reasons, and says how to accept or top it up; --allow-fewer accepts it; a
later generate tops it up, keeping the questions on disk and writing only what is missing (the offline writer is not
asked again for a root it already wrote). Real HTTPX documentation pages, the real offline writer and MiniLM."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragtest.cli import main
from testgen import ExtractiveWriter
from testgen.contexts import Context

Call = tuple[str, str, int]  # (root chunk id, question type, questions asked)


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Call]]:
    """Every call of the offline writer, as (root, type, questions asked), in order."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[Call] = []
    original = ExtractiveWriter.write

    async def counted(self: ExtractiveWriter, context: Context, n: int, question_type: Any = "simple") -> Any:
        calls.append((context.root.chunk_id, str(question_type), n))
        return await original(self, context, n, question_type)

    monkeypatch.setattr(ExtractiveWriter, "write", counted)
    yield calls


def _docs(folder: Path, test_data: Path, *pages: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for page in pages:
        shutil.copy(test_data / "docs" / "httpx" / page, folder / page)
    return folder


def _generate(source: Path, output: Path, *extra: str) -> int:
    argv = ["--quiet", "generate", "--source", str(source), "--size", "30", "--offline", "--output", str(output)]
    return main([*argv, *extra])


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _stats(output: Path) -> dict[str, Any]:
    return dict(json.loads(output.with_name(f"{output.stem}.manifest.json").read_text(encoding="utf-8"))["stats"])


def test_a_short_generate_keeps_its_questions_and_says_how_to_accept_or_top_them_up(
    tmp_path: Path, test_data: Path, writes: list[Call], capsys: pytest.CaptureFixture[str]
) -> None:
    source = _docs(tmp_path / "docs", test_data, "quickstart.md")
    output = tmp_path / "run" / "testset.jsonl"
    assert _generate(source, output) == 2
    error = capsys.readouterr().err
    rows = _lines(output)
    assert 0 < len(rows) < 30
    assert f"wrote {len(rows)} of the 30 questions asked to {output}" in error
    assert "--allow-fewer" in error and "To top them up" in error and "--max-questions-per-context" in error
    partial = _stats(output)["testset_partial"]
    assert partial["asked"] == 30 and partial["made"] == len(rows) and partial["accepted"] is False
    assert "corpus_used_up" in partial["advice"] and "requested samples" in partial["message"]
    assert output.with_name("testset.topup.json").is_file()

    first_writes = len(writes)
    assert _generate(source, output, "--allow-fewer") == 0  # the same settings: accepted, nothing written again
    assert _lines(output) == rows
    assert len(writes) == first_writes, "the writer was asked again for roots it had written"
    stats = _stats(output)
    assert stats["testset_partial"]["accepted"] is True and stats["testset_partial"]["made"] == len(rows)
    assert stats["testset_topup"]["kept"] == len(rows) and stats["generation"]["roots_drawn"] == 0


def test_a_top_up_with_more_sources_keeps_the_questions_and_writes_only_new_roots(
    tmp_path: Path, test_data: Path, writes: list[Call], capsys: pytest.CaptureFixture[str]
) -> None:
    source = _docs(tmp_path / "docs", test_data, "quickstart.md")
    output = tmp_path / "run" / "testset.jsonl"
    assert _generate(source, output) == 2
    before = [json.loads(line) for line in _lines(output)]
    first = list(writes)

    _docs(source, test_data, "http2.md", "async.md")  # more sources
    writes.clear()
    assert _generate(source, output) == 2  # still short of 30, with more questions
    assert "topping up the partial test set" in capsys.readouterr().err
    after = [json.loads(line) for line in _lines(output)]
    assert len(after) > len(before)
    assert [row["sample_id"] for row in after[: len(before)]] == [row["sample_id"] for row in before]
    # kept as they were, but for the store collection that now holds their chunks and the new pages'
    unchanged = [{k: v for k, v in row.items() if k != "corpus_id"} for row in before]
    assert [{k: v for k, v in row.items() if k != "corpus_id"} for row in after[: len(before)]] == unchanged
    assert len({row["corpus_id"] for row in after}) == 1
    top_up = list(writes)
    assert not set(top_up) & set(first), "a root was written again for the same type with as many questions"
    stats = _stats(output)["generation"]
    assert stats["kept"] == len(before) and stats["roots_skipped"] > 0

    writes.clear()
    fresh = tmp_path / "fresh" / "testset.jsonl"
    assert _generate(source, fresh) == 2
    assert len(top_up) < len(writes), (len(top_up), len(writes))  # the top-up wrote less than starting afresh


def test_more_questions_per_context_top_up_byte_for_byte_and_a_changed_seed_starts_afresh(
    tmp_path: Path, test_data: Path, writes: list[Call], capsys: pytest.CaptureFixture[str]
) -> None:
    source = _docs(tmp_path / "docs", test_data, "quickstart.md")
    output = tmp_path / "run" / "testset.jsonl"
    assert _generate(source, output, "--max-questions-per-context", "1") == 2
    rows = _lines(output)
    first = set(writes)
    assert {n for _, _, n in first} == {1}

    writes.clear()
    assert _generate(source, output, "--max-questions-per-context", "4") == 2
    grown = _lines(output)
    assert grown[: len(rows)] == rows and len(grown) > len(rows)  # the same corpus: the same bytes
    assert writes and all(n > 1 for _, _, n in writes), "only roots asked for more questions are written"
    capsys.readouterr()

    assert _generate(source, output, "--max-questions-per-context", "4", "--seed", "7") == 2
    assert "starting afresh" in capsys.readouterr().err
    assert "--seed 42 -> 7" in _stats(output)["testset_topup"]["started_afresh"]


def test_run_stops_after_a_partial_test_set_unless_fewer_are_allowed(
    tmp_path: Path, test_data: Path, writes: list[Call], capsys: pytest.CaptureFixture[str]
) -> None:
    source = _docs(tmp_path / "docs", test_data, "quickstart.md")
    out = tmp_path / "run"
    argv = ["--quiet", "run", "--source", str(source), "--size", "30", "--offline", "--out", str(out)]
    assert main(argv) == 2
    assert "--allow-fewer" in capsys.readouterr().err
    made = len(_lines(out / "testset.jsonl"))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["stats"]["testset_partial"]["made"] == made
    assert not (out / "answers.jsonl").exists() and not (out / "scores.jsonl").exists()

    assert main([*argv, "--allow-fewer", "--metrics", "hit_rate"]) == 0
    assert len(_lines(out / "scores.jsonl")) == made
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["stats"]["testset_partial"]["accepted"] is True
