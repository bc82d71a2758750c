"""No ceiling on corpus size on one machine: `ragtest generate` on a corpus of more than 40,000 chunks.

Chroma's `get()` of a whole collection fails from about 33,000 records ("too many SQL variables"); the store reads
page by page and the generator draws roots from chunk keys, so a bigger corpus generates without error. The corpus
is copies of a real article (each copy its own document, so its own chunk ids): real Chroma and real MiniLM
embeddings, with the embedder's memo computing each distinct text once. The default variant uses small chunks;
the slow one the default chunk settings. Each prints the command's peak resident memory.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PEAK = (
    "import resource, sys\n"
    "from ragtest.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('peak_rss_mb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    "sys.exit(code)\n"
)


def copies(articles: list[Path], count: int, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for index in range(count):
        for article in articles:
            shutil.copy(article, folder / f"{article.stem}_{index:03d}.txt")
    return folder


def generate(folder: Path, out: Path, *options: str) -> tuple[dict[str, object], int]:
    command = [sys.executable, "-c", PEAK, "--quiet", "generate", "--source", str(folder)]
    command += ["--output", str(out / "testset.jsonl"), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    peak = int(done.stdout.rsplit("peak_rss_mb", 1)[1].split()[0])
    manifest = json.loads((out / "testset.manifest.json").read_text())
    return manifest, peak


def test_more_than_40000_small_chunks_generate(wiki_dir: Path, tmp_path: Path) -> None:
    folder = copies([wiki_dir / "Python_(programming_language).txt"], 88, tmp_path / "corpus")
    manifest, peak = generate(folder, tmp_path / "out", "--chunk-size", "120", "--chunk-overlap", "0", "--size", "5")
    stats = manifest["stats"]
    assert isinstance(stats, dict)
    assert stats["chunks"] > 40_000 and stats["chunks_embedded"] == stats["chunks"]
    assert stats["generation"]["chunks_available"] == stats["chunks"]
    rows = (tmp_path / "out" / "testset.jsonl").read_text().splitlines()
    assert len(rows) == 5
    print(f"\n{stats['chunks']} chunks: peak resident memory {peak} MB")


@pytest.mark.slow
def test_more_than_40000_default_chunks_generate(wiki_dir: Path, tmp_path: Path) -> None:
    articles = sorted(wiki_dir.glob("*.txt"))
    folder = copies(articles, 46, tmp_path / "corpus")
    manifest, peak = generate(folder, tmp_path / "out", "--size", "20")
    stats = manifest["stats"]
    assert isinstance(stats, dict)
    assert stats["chunks"] > 40_000 and stats["generation"]["chunks_available"] == stats["chunks"]
    assert len((tmp_path / "out" / "testset.jsonl").read_text().splitlines()) == 20
    print(f"\n{stats['chunks']} chunks: peak resident memory {peak} MB")
