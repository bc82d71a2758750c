"""The layers stay one-way: the import-linter contracts hold and no module imports its way back to itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ragtest", "testgen", "rag_under_test", "evaluation", "ragtest_core")


def test_import_linter_contracts_hold() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (as a path that returns to its start), or None."""
    state: dict[str, int] = {}
    for start in sorted(edges):
        if start in state:
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(edges[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(edges.get(nxt, set()))))
    return None


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    graph = grimp.build_graph(*PACKAGES)  # grimp reads every import statement, function-level ones included
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert find_cycle(edges) is None, find_cycle(edges)
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]  # the check can fail


def test_core_imports_nothing_of_ours() -> None:
    graph = grimp.build_graph(*PACKAGES)
    upper = {m for m in graph.modules if m.split(".")[0] != "ragtest_core"}
    core = {m for m in graph.modules if m.split(".")[0] == "ragtest_core"}
    reached = {imported for module in core for imported in graph.find_modules_directly_imported_by(module)}
    assert not reached & upper
