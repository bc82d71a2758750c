"""Jupyter notebooks read by nbformat: Markdown cells as Markdown (a heading holds for the cells after it), code
cells as code blocks; outputs are left out."""

from __future__ import annotations

from testgen.loaders.markdown import parse_parts
from testgen.structure import Section


def parse_notebook(text: str, title: str) -> tuple[list[Section], int]:
    """(sections, markers dropped) of a notebook's JSON text (any nbformat version nbformat reads)."""
    import nbformat

    notebook = nbformat.reads(text, as_version=4)
    parts = [
        ("markdown" if cell.cell_type == "markdown" else "code", str(cell.source))
        for cell in notebook.cells
        if cell.cell_type in ("markdown", "code") and str(cell.source).strip()
    ]
    return parse_parts(parts, title)
