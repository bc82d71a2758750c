"""What `run`, `evaluate` (CLI and Python) write after scoring: the scored rows, summary.json in one layout, and
the report; plus what a later `compare` needs to know the runs are comparable.

summary.json (a run directory's `summary.json`, or `<output stem>.summary.json` beside `evaluate --output`; see
`OutputPaths.beside` for the one naming rule every writer and reader follows):

    {"layout": 1, "rows": N, "rows_without_any_score": K,
     "metrics": {metric: {mean, ci_low, ci_high, interval_method, rows_scored, rows_failed, by_question_type, ...}},
     "scoring": {judge, judge_model, judge_settings, embedding_model, embedding_precision, metrics, max_field_chars},
     "testset": {rows, fingerprint},
     "run": {adapter, seed, llm, generation_warnings},
     "labels": {file, labellers, rows, metrics} or null,
     "fields_cut": {limit, rows, fields, row_numbers} (texts scored on their first max_field_chars characters)}

With human labels (`evaluate --labels`, `run --labels`: `attach_ppi`), each labelled metric's entry gains `ppi: {mean,
ci_low, ci_high, n_labels, n_unlabelled, lam, labels_only, judge_bias, note}` (`evaluation.ppi`), and `labels` names
the file, which `compare` reads to find each run's labels. A row of the labels file that gives no metric a value (a
row skipped on the review page: `ragtest.review.labelling.is_label`) is no label: it counts in neither `rows` nor
`labellers`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from evaluation.engine import EvaluationResult
from evaluation.identity import judge_settings
from evaluation.labelled import ppi_summaries
from ragtest.config import RunConfig
from ragtest.manifest import MANIFEST_FILE
from ragtest.report import write_run_report
from ragtest.review.labelling import is_label
from ragtest.review.testset_review import REVIEWED_SUFFIX
from ragtest.run_state import SCORES_FILE, SUMMARY_FILE, RunState
from ragtest_core.datasets import SUPPORTED_SUFFIXES, records, write_dataset
from ragtest_core.embeddings import get_embedder
from ragtest_core.errors import RagtestError
from ragtest_core.files import write_json
from ragtest_core.labels import labelled_metrics, labellers, read_labels, row_key
from ragtest_core.schema import CONTEXT_IDS, GROUND_TRUTH, MAPPED_CONTEXT_IDS, QUESTION, stable_id

SUMMARY_LAYOUT = 1
REPORT_STEM = "report"
#: Column names of `--columns ragas`: ragas' EvaluationDataset reads them with no renaming.
RAGAS_COLUMNS = {"question": "user_input", "answer": "response", "contexts": "retrieved_contexts"}
RAGAS_RENAMES = {**RAGAS_COLUMNS, GROUND_TRUTH: "reference", CONTEXT_IDS: "retrieved_context_ids"}
COLUMN_STYLES = ("ragtest", "ragas")


@dataclass(frozen=True)
class OutputPaths:
    """Where the scored rows, the summary and the report go (the manifest: `ragtest.manifest`)."""

    scores: Path
    summary: Path
    report_stem: Path

    @property
    def report_html(self) -> Path:
        return self.report_stem.with_name(f"{self.report_stem.name}.html")

    @classmethod
    def in_dir(cls, run_dir: str | Path) -> OutputPaths:
        """A run directory: scores.jsonl, summary.json, manifest.json, report.md and report.html."""
        root = Path(run_dir)
        return cls(root / SCORES_FILE, root / SUMMARY_FILE, root / REPORT_STEM)

    @classmethod
    def beside(cls, output: str | Path) -> OutputPaths:
        """`evaluate --output x.jsonl`: x.jsonl, x.summary.json, x.manifest.json, x.report.md and x.report.html. A
        file named like a run directory's scores (scores.jsonl) takes the run directory's names (summary.json,
        report.md, report.html; its stage manifest scores.manifest.json), so a folder reads the same whichever
        command scored it. Every reader finds a scored file's summary by this rule (`locate_scored`)."""
        path = Path(output)
        if path.stem == Path(SCORES_FILE).stem:
            return cls(path, path.with_name(SUMMARY_FILE), path.with_name(REPORT_STEM))
        return cls(path, path.with_name(f"{path.stem}.summary.json"), path.with_name(f"{path.stem}.{REPORT_STEM}"))


def _scored_files(folder: Path) -> list[Path]:
    """The scored dataset files of a folder: its scores.* (a run directory), else each file with a summary beside it."""

    def files(stem: str) -> list[Path]:
        return [path for suffix in SUPPORTED_SUFFIXES if (path := folder / f"{stem}{suffix}").is_file()]

    summaries = sorted(p.name.removesuffix(".summary.json") for p in folder.glob("*.summary.json"))
    return files(Path(SCORES_FILE).stem) or [path for stem in summaries for path in files(stem)]


def locate_scored(path: str | Path) -> OutputPaths:
    """A scored run, given as its folder or its scored file: where its scored rows and its summary are."""
    source = Path(path)
    if source.is_file():
        return OutputPaths.beside(source)
    if not source.is_dir():
        raise RagtestError(f"not found: {source} (give a run directory or a scored dataset file)")
    files = _scored_files(source)
    if not files:
        raise RagtestError(
            f"{source} holds no scored dataset ({SCORES_FILE}, or a file with <name>.summary.json "
            "beside it): give a ragtest run directory or a scored dataset file"
        )
    if len(files) > 1:
        raise RagtestError(
            f"{source} holds {len(files)} scored datasets ({', '.join(p.name for p in files)}): name the one to use"
        )
    return locate_scored(files[0])


def testset_identity(frame: pd.DataFrame) -> dict[str, Any]:
    """The test set's row count and a fingerprint of its rows (key, question, reference answer), order-free."""
    parts = sorted(
        "\x1f".join((row_key(row), str(row.get(QUESTION, "")), str(row.get(GROUND_TRUTH, "") or "")))
        for row in records(frame)
    )
    return {"rows": len(frame), "fingerprint": stable_id(*parts)}


def model_identity(spec: str | None, base_url: str | None) -> str:
    """`ragtest_core.llm.spec.model_identity`, imported only when an LLM is used: the module imports LangChain."""
    from ragtest_core.llm import spec as specs

    return specs.model_identity(spec, base_url)


def scoring_identity(config: RunConfig, metrics: Sequence[str]) -> dict[str, Any]:
    """What decides the scores besides the rows: judge, its model and settings, embedding model and precision."""
    judge = config.resolved_judge()
    llm = config.llm
    return {
        "judge": judge,
        "judge_model": model_identity(llm.spec, llm.base_url) if judge == "llm" else None,
        "judge_settings": judge_settings(judge)["fingerprint"],
        "embedding_model": config.embedding_model,
        "embedding_precision": get_embedder(config.embedding_model).precision,
        "retrieval_k": config.retrieval_k,
        "repeats": config.repeats,
        "metrics": list(metrics),
        "max_field_chars": config.max_field_chars,
    }


def run_facts(state: RunState, inherited: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the report says about the run: the adapter tested, the seed, the LLM, generation warnings. A stage
    command takes what it cannot know itself from the manifest of its input (`inherited`)."""
    stats, before = state.stats, dict((inherited or {}).get("stats") or {})
    generation = stats.get("generation") or before.get("generation") or {}
    llm = state.config.llm
    return {
        "adapter": stats.get("rag_adapter") or before.get("rag_adapter"),
        "seed": stats.get("testset_seed", before.get("testset_seed")),
        "llm": model_identity(llm.spec, llm.base_url) if llm.configured else None,
        "generation_warnings": list(generation.get("warnings") or []),
    }


def attach_ppi(state: RunState, result: EvaluationResult) -> None:
    """Add the PPI estimate of every labelled metric to `result.summary` (and the labels' record to the stats)."""
    if not state.config.labels:
        return
    path = Path(state.config.labels).resolve()
    rows = [row for row in read_labels(path) if is_label(row)]  # a skipped row labels nothing
    found = ppi_summaries(result.frame, rows, result.metric_names)
    for metric, ppi in found.items():
        result.summary[metric]["ppi"] = ppi.summary()
    state.stats["labels"] = {
        "file": str(path),
        "labellers": labellers(rows),
        "rows": len(rows),
        "metrics": sorted(found),
    }
    unmatched = [m for m in labelled_metrics(rows) if m not in result.summary]
    if not found:
        print(f"ragtest: note: {path} labels none of the metrics scored here", file=sys.stderr)
    elif unmatched:
        print(f"ragtest: note: labels of metrics not scored here are left out: {', '.join(unmatched)}", file=sys.stderr)


def rows_without_any_score(frame: pd.DataFrame, metrics: Sequence[str]) -> int:
    """Rows on which every metric failed (each with its reason)."""
    return int((~frame[list(metrics)].notna().any(axis=1)).sum())


def summary_document(
    state: RunState, result: EvaluationResult, inherited: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    names = result.metric_names
    return {
        "layout": SUMMARY_LAYOUT,
        "rows": len(result.frame),
        "rows_without_any_score": rows_without_any_score(result.frame, names),
        "metrics": result.summary,
        "scoring": scoring_identity(state.config, names),
        "testset": testset_identity(result.frame),
        "run": run_facts(state, inherited),
        # the human labels behind each metric's `ppi` entry (`attach_ppi`), or None
        "labels": state.stats.get("labels"),
        "fields_cut": result.fields_cut,
    }


def ragas_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Our columns under ragas' names (user_input, response, retrieved_contexts, reference, ...). A scored frame's
    `mapped_context_ids` (retrieved contexts as gold ids where they match one) becomes `retrieved_context_ids`, which
    ragas' ID-based metrics read against `reference_context_ids`; the RAG's own ids stay as `rag_context_ids`."""
    renames = dict(RAGAS_RENAMES)
    if MAPPED_CONTEXT_IDS in frame.columns:
        renames.update({CONTEXT_IDS: "rag_context_ids", MAPPED_CONTEXT_IDS: RAGAS_RENAMES[CONTEXT_IDS]})
    return frame.rename(columns={old: new for old, new in renames.items() if new not in frame.columns})


def write_rows(frame: pd.DataFrame | Sequence[Mapping[str, Any]], path: Path, columns: str = "ragtest") -> Path:
    """A dataset file, with ragtest's column names or (columns="ragas") ragas'."""
    if columns not in COLUMN_STYLES:
        raise ValueError(f"columns must be one of {COLUMN_STYLES}, got {columns!r}")
    table = frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(list(frame))
    return write_dataset(ragas_columns(table) if columns == "ragas" else table, path)


def write_scored(
    state: RunState,
    result: EvaluationResult,
    paths: OutputPaths,
    columns: str = "ragtest",
    inherited: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the scored rows, summary.json and the report (.md and .html); return the summary document."""
    write_rows(result.frame, paths.scores, columns)
    document = summary_document(state, result, inherited)
    write_json(document, paths.summary)
    write_run_report(paths.report_stem, result.frame, document, state.stats, state.timings)
    return document


def input_manifest(input_path: Path) -> dict[str, Any] | None:
    """The manifest written with a stage's input: `<stem>.manifest.json`; for a reviewed copy (`X.reviewed.jsonl`,
    which `ragtest review` writes beside `X.jsonl`) also the test set's own `X.manifest.json`; else the folder's
    manifest.json. Every stage that reads an input's manifest (`answer`, `evaluate`, `run --testset`, in the CLI and
    in Python) finds it by this one rule."""
    stems = dict.fromkeys((input_path.stem, input_path.stem.removesuffix(REVIEWED_SUFFIX)))
    candidates = [input_path.with_name(f"{stem}.manifest.json") for stem in stems]
    for candidate in (*candidates, input_path.parent / MANIFEST_FILE):
        if candidate.is_file():
            try:
                value = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                return None
            return value if isinstance(value, dict) else None
    return None
