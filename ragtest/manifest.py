"""The run manifest: config, library versions, seed, timings, counts and LLM usage of one run."""

from __future__ import annotations

import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from evaluation.identity import judge_settings
from ragtest.config import RunConfig
from ragtest.config.scope import applied
from ragtest.run_state import RunState
from ragtest.settings import redact_argv, settings_record
from ragtest_core.embeddings import get_embedder
from ragtest_core.files import write_json

MANIFEST_FILE = "manifest.json"
#: The stats entry listing the stages a run went through (generate, answer, evaluate).
STAGES_KEY = "stages"
_PACKAGES = (
    "ragtest",
    "langchain",
    "langchain-core",
    "langchain-community",
    "langchain-text-splitters",
    "chromadb",
    "sentence-transformers",
    "torch",
    "wikipedia",
    "pandas",
    "pyarrow",
    "langchain-openai",
)


def library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def build_manifest(state: RunState) -> dict[str, Any]:
    # the settings of the stages this run went through (`ragtest.steps` marks each as it starts), the ones that took
    # effect; a state that ran none records every setting
    stages = state.stats.get(STAGES_KEY)
    return {
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": redact_argv(sys.argv, RunConfig),
        "config": settings_record(state.config, applied(state.config, stages) if stages else None),
        "seed": state.config.generation.seed,
        "judge": state.config.resolved_judge(),
        "judge_settings": judge_settings(state.config.resolved_judge()),
        "versions": library_versions(),
        "embedding": {
            "model": state.config.embedding_model,
            "precision": get_embedder(state.config.embedding_model).precision,
            # "onnx" or "torch" (same float32 vectors to cosine 0.9999998); "auto" when nothing was embedded
            "backend": get_embedder(state.config.embedding_model).backend,
        },
        "timings_s": state.timings,
        "stats": state.stats,
        "llm_usage": state.llm.usage.as_dict() if state.llm is not None else None,
        "llm_runtime": llm_runtime(state),
    }


def llm_runtime(state: RunState) -> dict[str, Any] | None:
    """How the runtime adapted: the adaptive concurrency limit at the end, its cuts on 429s, how structured output
    was asked for, the prompt kinds stopped because the model could not do them, utilisation, the cache."""
    llm = state.llm
    if llm is None:
        return None
    return {
        "concurrency_limit_final": round(llm.concurrency.limit, 2),
        "concurrency_limit_lowest": round(llm.concurrency.lowest, 2),
        "concurrency_cuts": llm.concurrency.cuts,
        "structured_output": llm.structured_mode,
        "stopped_prompt_kinds": sorted(llm.guard.tripped),
        "utilisation": llm.usage.utilisation(),
        "cache": str(llm.cache.path) if llm.cache is not None else None,
    }


def write_manifest(state: RunState, path: Path | None = None) -> Path:
    """The run's manifest; a single-stage command writes `<output stem>.manifest.json` beside its output."""
    return write_json(build_manifest(state), path or state.run_dir / MANIFEST_FILE)


def stage_manifest_path(output: Path) -> Path:
    return output.with_name(f"{output.stem}.manifest.json")
