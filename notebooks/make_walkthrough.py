"""Writes walkthrough.ipynb (kept as code so the notebook's cells are reviewed like any other source)."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    new_markdown_cell(
        "# ragtest walk-through (offline)\n\n"
        "Build a test set from a Wikipedia article read from the local page cache (examples/wikipedia), answer it with the reference "
        "RAG, score it with the local judge, and look at the weakest rows. No network, no LLM."
    ),
    new_code_cell(
        "import os\n"
        "from pathlib import Path\n\n"
        "import ragtest\n\n"
        "os.environ.setdefault('HF_HUB_OFFLINE', '1')\n"
        "WIKI_CACHE = Path(os.environ.get('RAGTEST_WIKI_CACHE', '../examples/wikipedia')).resolve()\n"
        "RUN_DIR = Path(os.environ.get('RAGTEST_NOTEBOOK_RUN', 'runs/notebook'))\n"
        "config = ragtest.make_config(topic='Python (programming language)', wiki_cache=str(WIKI_CACHE), offline=True, size=6, seed=1)"
    ),
    new_markdown_cell("## 1. Generate: chunks -> Chroma -> root + neighbours -> questions"),
    new_code_cell(
        "testset = ragtest.generate(config, RUN_DIR, show_progress=False)\n"
        "testset.to_pandas()[['question', 'ground_truth', 'question_type', 'reference_context_ids']]"
    ),
    new_markdown_cell("## 2. Answer with the reference RAG (or pass `adapter=YourRAG()`)"),
    new_code_cell(
        "answers = ragtest.answer(testset, config, RUN_DIR, show_progress=False)\n"
        "answers[['question', 'answer', 'context_ids']]"
    ),
    new_markdown_cell("## 3. Score with the local judge"),
    new_code_cell(
        "report = ragtest.evaluate(answers, config, RUN_DIR, show_progress=False)\n"
        "for name, m in report.metrics.items():\n"
        '    print(f"{name:<20} mean={m.mean} scored={m.rows_scored}/{m.rows} interval={m.interval}")'
    ),
    new_code_cell(
        "cols = ['question', 'answer', 'faithfulness', 'faithfulness_reason']\n"
        "report.to_pandas().sort_values('faithfulness')[cols].head(3)"
    ),
]


def main() -> None:
    notebook = new_notebook(cells=CELLS, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                   "language": "python"}})
    nbformat.write(notebook, Path(__file__).with_name("walkthrough.ipynb"))


if __name__ == "__main__":
    main()
