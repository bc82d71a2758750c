"""Two versions of real documents for the refresh tests: a test set generated offline from the old one, and the
new one made by hand-editing what some rows stand on."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragtest.cli import main
from ragtest.refresh.matching import OldRow, evidence_sentences


def generate(source: Path, output: Path, size: int) -> list[dict[str, Any]]:
    assert main(["--quiet", "generate", "--source", str(source), "--size", str(size), "--output", str(output)]) == 0
    return read(output)


def refresh(old: Path, source: Path, output: Path, *extra: str) -> int:
    args = ["--quiet", "refresh", "--testset", str(old), "--source", str(source), "--output", str(output), *extra]
    return main(args)


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def copy_pages(folder: Path, target: Path, names: Sequence[str]) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / name, target / name)
    return target


def evidence(row: dict[str, Any]) -> list[str]:
    return evidence_sentences(OldRow.of(row, None, {}))


def sentence_pattern(sentence: str) -> re.Pattern[str]:
    """`sentence` in the raw file, whatever whitespace its words are separated by."""
    return re.compile(r"\s+".join(re.escape(word) for word in sentence.split()))


def edit_sentence(text: str, sentence: str, new: str) -> str:
    edited, found = sentence_pattern(sentence).subn(new, text, count=1)
    assert found == 1, sentence
    return edited


def changelog(output: Path) -> dict[str, Any]:
    return dict(json.loads(output.with_name(f"{output.stem}.changelog.json").read_text(encoding="utf-8")))


def reformat_markdown(text: str) -> str:
    """The same page with its markup restyled only: setext headings, '-' bullets, paragraphs re-wrapped onto one
    line, '_' for '*' emphasis, single blank lines (inside code blocks too)."""
    blocks = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.splitlines()
        if not lines or lines[0].startswith(("```", "    ", "!!!", "|", ">", "<")) or "```" in block:
            blocks.append(block)
            continue
        heading = re.match(r"^(#{1,2}) (.+)$", lines[0])
        if heading and len(lines) == 1:
            title = heading.group(2)
            blocks.append(f"{title}\n{('=' if heading.group(1) == '#' else '-') * len(title)}")
        elif all(line.startswith(("* ", "- ")) for line in lines):
            blocks.append("\n".join("- " + line[2:] for line in lines))
        elif not any(line.startswith(("#", "* ", "- ", "1.")) for line in lines):
            joined = " ".join(line.strip() for line in lines)
            blocks.append(re.sub(r"(?<![*\w])\*(\w[^*]*?)\*(?!\*)", r"_\1_", joined))
        else:
            blocks.append(block)
    return "\n\n".join(blocks) + "\n"
