"""Every shell block of README.md runs as written: in README order, with `bash -euo pipefail`, in one temporary
folder that holds the shipped data (`examples/`, `tests/data/`), with the venv's bin on PATH and HF_HUB_OFFLINE=1.

The README's conventions, which this test reads:

- ```bash, ```sh and ```console blocks are shell (in a console block, the `$ ` lines). Later blocks read what
  earlier ones wrote (`runs/base/testset.jsonl`), so a block's test first runs the blocks above it.
- A ```python block whose first line is `# NAME.py` is that file (`my_rag.py`): it is written into the folder before
  any block runs, so the adapters the README defines are the ones its commands load.
- `<!-- readme-test: exit N -->` on the line before a block: the exit status the block documents (a gate meant to
  fail); every other block must exit 0. `<!-- readme-test: slow -->`: the block's case is marked slow; no other
  block may read what it writes.
- The fresh-machine block (`make demo`, `make test`) is skipped: CI runs both itself, on a clone with nothing beside
  it (`.ci/run`).
- LLM blocks talk to the project's OpenAI-compatible stub server (tests/stubs) through the variables a user sets:
  OPENAI_API_KEY and OPENAI_BASE_URL. The README's example addresses are served here: an OpenAI-compatible server
  at http://localhost:8000/v1 (the same stub) and an HTTP RAG endpoint at http://localhost:8080/rag (a small
  word-overlap RAG on loopback); each is replaced by the real address before the block runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.stubs.openai_server import OpenAIStubServer
from tests.stubs.responder import PlausibleResponder

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SHIPPED_DATA = ("examples", "tests/data")
SHELL_LANGUAGES = frozenset({"bash", "sh", "console"})
FRESH_MACHINE = frozenset({"make demo", "make test"})
LLM_SERVER = "http://localhost:8000/v1"
RAG_ENDPOINT = "http://localhost:8080/rag"
PAGE = ROOT / "examples" / "wikipedia" / "Python_(programming_language).txt"
#: The judge prompts the plausible responder leaves to its caller (as in tests/e2e/test_cli_llm_judge.py).
SUPPORT_PROMPTS = re.compile(r"Does the premise fully support|Does the answer decline|classify them: TP")
MARKER = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->")
FENCE = re.compile(r"^```(\S*)\s*$")
FILE_BLOCK = re.compile(r"#\s*([A-Za-z_][\w]*\.py)\s*$")
#: What a block's output must not show even when it exits 0: a traceback, answers that failed (`answer` exits 1
#: only when every question failed), or rows a metric could not score (a summary line with failed > 0).
PROBLEMS = re.compile(
    r"^Traceback \(most recent call last\)|\([1-9]\d* with errors\)"
    r"|^\w+ +(?:[\d.]+|n/a) +(?:\[[^\]]*\]|-) +\d+ +[1-9]\d* *$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Block:
    """One fenced block of the README: its language, text, first line number and test markers."""

    language: str
    text: str
    line: int
    markers: tuple[str, ...] = ()

    @property
    def expected_exit(self) -> int:
        for marker in self.markers:
            if match := re.fullmatch(r"exit\s+(\d+)", marker):
                return int(match.group(1))
        return 0

    @property
    def slow(self) -> bool:
        return "slow" in self.markers

    @property
    def script(self) -> str:
        """The shell text to run (a console block: its `$ ` commands and their continuation lines)."""
        if self.language != "console":
            return self.text
        lines: list[str] = []
        continued = False
        for line in self.text.splitlines():
            if line.startswith("$ ") or continued:
                lines.append(line[2:] if line.startswith("$ ") else line)
                continued = line.rstrip().endswith("\\")
        return "\n".join(lines) + "\n"

    @property
    def commands(self) -> list[str]:
        """Its command lines, comments and blank lines left out."""
        lines = (line.split("#", 1)[0].strip() for line in self.script.splitlines())
        return [line for line in lines if line]

    @property
    def fresh_machine(self) -> bool:
        return bool(self.commands) and all(" ".join(c.split()[:2]) in FRESH_MACHINE for c in self.commands)

    @property
    def name(self) -> str:
        words = re.findall(r"[a-z][a-z_-]*", self.commands[0] if self.commands else self.language)[:3]
        return f"line{self.line}-{'-'.join(words)}"


def read_blocks(text: str) -> list[Block]:
    """The README's fenced blocks, in order, each with the markers of the comment lines right above it."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        markers: list[str] = []
        above = index - 1
        while above >= 0 and (match := MARKER.fullmatch(lines[above].strip())):
            markers.insert(0, match.group(1))
            above -= 1
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        body = "\n".join(lines[index + 1 : end]) + "\n"
        blocks.append(Block(opening.group(1).lower(), body, index + 1, tuple(markers)))
        index = end + 1
    return blocks


BLOCKS = read_blocks(README.read_text(encoding="utf-8"))
SHELL_BLOCKS = [b for b in BLOCKS if b.language in SHELL_LANGUAGES]
FILE_BLOCKS = {
    m.group(1): b for b in BLOCKS if b.language == "python" and (m := FILE_BLOCK.fullmatch(b.text.split("\n", 1)[0]))
}


@dataclass
class Outcome:
    returncode: int
    output: str
    seconds: float
    problems: list[str]


@dataclass
class Workspace:
    """The folder the README's blocks run in, the environment they see, and what each block did."""

    folder: Path
    env: dict[str, str]
    addresses: dict[str, str]
    outcomes: dict[int, Outcome] = field(default_factory=dict)

    def run(self, block: Block) -> Outcome:
        if block.line not in self.outcomes:
            script = block.script
            for example, real in self.addresses.items():
                script = script.replace(example, real)
            started = time.perf_counter()
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=self.folder,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            output = f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
            problems = [m.group(0) for m in PROBLEMS.finditer(done.stdout + done.stderr)]
            self.outcomes[block.line] = Outcome(done.returncode, output, time.perf_counter() - started, problems)
        return self.outcomes[block.line]

    def run_through(self, block: Block) -> Outcome:
        """Run the blocks above `block` that it may depend on (not the fresh-machine or slow ones), then it."""
        for earlier in SHELL_BLOCKS:
            if earlier.line >= block.line:
                break
            if earlier.fresh_machine or earlier.slow:
                continue
            outcome = self.run(earlier)
            assert succeeded(earlier, outcome), f"an earlier block failed: {describe(earlier, outcome)}"
        return self.run(block)


def succeeded(block: Block, outcome: Outcome) -> bool:
    return outcome.returncode == block.expected_exit and not outcome.problems


def describe(block: Block, outcome: Outcome) -> str:
    return (
        f"README.md line {block.line} exited {outcome.returncode} (documented: {block.expected_exit}) "
        f"after {outcome.seconds:.1f} s, problems: {outcome.problems or 'none'}:\n{block.text}{outcome.output}"
    )


PARAGRAPHS = [p for p in PAGE.read_text(encoding="utf-8").splitlines() if len(p) > 40]


def word_overlap_rag(question: str) -> dict[str, Any]:
    """The 4 paragraphs of the demo's page that share most words with the question; the best one's first sentence."""
    words = set(question.lower().split())
    top = sorted(range(len(PARAGRAPHS)), key=lambda i: -len(words & set(PARAGRAPHS[i].lower().split())))[:4]
    return {
        "answer": PARAGRAPHS[top[0]].split(". ")[0] + ".",
        "contexts": [PARAGRAPHS[i] for i in top],
        "context_ids": [f"p{i}" for i in top],
    }


class RAGEndpoint(BaseHTTPRequestHandler):
    """A RAG behind HTTP, as `HTTPAdapter` expects one: POST {"question"} -> {"answer", "contexts", "context_ids"}."""

    def do_POST(self) -> None:
        question = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["question"]
        body = json.dumps(word_overlap_rag(question)).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def llm_server() -> Iterator[OpenAIStubServer]:
    responder = PlausibleResponder()

    def reply(request: Any) -> str | None:
        if SUPPORT_PROMPTS.search(getattr(request, "prompt", "")):
            return json.dumps({"reason": "r", "verdict": 1, "rejected": 0, "TP": [], "FP": [], "FN": []})
        return responder(request)

    with OpenAIStubServer(responder=reply, batch_delay_s=0.2, lifetime_s=900) as server:
        yield server


@pytest.fixture(scope="module")
def rag_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), RAGEndpoint)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/rag"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, llm_server: OpenAIStubServer, rag_endpoint: str) -> Workspace:
    folder = tmp_path_factory.mktemp("readme")
    for relative in SHIPPED_DATA:  # copies: no block can change the repository's own data
        shutil.copytree(ROOT / relative, folder / relative)
    for name, block in FILE_BLOCKS.items():
        (folder / name).write_text(block.text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGTEST_", "OPENAI_", "ANTHROPIC_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(HF_HUB_OFFLINE="1", OPENAI_API_KEY="sk-readme-test", OPENAI_BASE_URL=llm_server.url)
    return Workspace(folder, env, {LLM_SERVER: llm_server.url, RAG_ENDPOINT: rag_endpoint})


def test_the_readme_has_shell_blocks_and_the_files_they_load() -> None:
    assert len(SHELL_BLOCKS) >= 10, "the README lost its shell examples"
    loaded = {m.group(1) for b in SHELL_BLOCKS for m in re.finditer(r"--rag ([A-Za-z_]\w*):", b.text)}
    missing = {f"{name}.py" for name in loaded if name != "rag_under_test"} - set(FILE_BLOCKS)
    assert not missing, f"README commands load adapters no `# NAME.py` block defines: {sorted(missing)}"


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=b.name, marks=[pytest.mark.slow] if b.slow else []) for b in SHELL_BLOCKS],
)
def test_readme_shell_block(block: Block, workspace: Workspace) -> None:
    if block.fresh_machine:
        pytest.skip("`make demo` and `make test` are run by CI itself (.ci/run), on a clone with nothing beside it")
    outcome = workspace.run_through(block)
    assert succeeded(block, outcome), describe(block, outcome)
