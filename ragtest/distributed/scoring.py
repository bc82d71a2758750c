"""Scoring on Ray (docs/scale.md): `map_batches` over row partitions, each worker scoring its rows with
`evaluation.engine.score_records`. A row's scores depend on nothing but the row, the judge's settings and the models,
so they equal a single process's, in the input's order. The driver writes each row's results to a progress file as
they arrive (keyed by a hash of the row and the scoring identity), so a driver killed and run again scores only the
rest; Ray Data reruns a lost worker's partition (its actor pools default to unlimited restarts and task retries).
With the LLM judge every worker's client shares the run's budget (`ragtest.distributed.budget`), and each
partition's token usage is added to the driver's.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

import evaluation
from evaluation.engine import score_records
from evaluation.identity import judge_settings
from ragtest.config import LLMSettings, RunConfig
from ragtest.distributed.budget import SharedCache, SharedConcurrency, SharedLimits, start_budget
from ragtest.distributed.logs import RayLog
from ragtest.distributed.session import ray_for, worker_count
from ragtest.run_state import RunState
from ragtest_core.datasets import JsonlAppender, read_jsonl
from ragtest_core.embeddings import get_embedder
from ragtest_core.llm.usage import load_prices
from ragtest_core.schema import MetricResult

#: Rows a worker scores at a time (a partition).
ROWS_PER_PARTITION = 32
RowScorer = Callable[[Sequence[evaluation.Metric], list[dict[str, Any]]], list[dict[str, MetricResult]]]


def jsonable(value: Any) -> Any:
    """A dataset cell as JSON can carry it (arrays as lists, numpy scalars as numbers)."""
    return value.tolist() if isinstance(value, np.ndarray | np.generic) else str(value)


def row_key(row: dict[str, Any], identity: str) -> str:
    """What a row's scores depend on: the row itself and the scoring identity (metrics, judge, models)."""
    text = json.dumps(row, sort_keys=True, default=jsonable, ensure_ascii=False)
    return hashlib.sha256(f"{identity}\x1f{text}".encode()).hexdigest()


class ScorePartition:
    """A scoring worker: the embedding model (and the LLM client, for the LLM judge) made once."""

    def __init__(
        self, config: RunConfig, metrics: list[evaluation.Metric], judge: str, budget: str | None, cache: str | None
    ) -> None:
        self.metrics, self.judge, self.max_field_chars = metrics, judge, config.max_field_chars
        self.embedder = get_embedder(config.embedding_model)
        self.llm = worker_client(config.llm, budget, cache) if budget else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        rows = [json.loads(text) for text in batch["row"]]
        if self.llm is not None:
            self.llm.usage.stages.clear()  # what this partition used, and only that, goes back to the driver
        scored = score_records(rows, self.metrics, self.judge, self.llm, self.embedder, self.max_field_chars)
        results = [json.dumps({name: r.model_dump(mode="json") for name, r in row.items()}) for row in scored]
        usage = [""] * len(rows)
        if self.llm is not None and rows:
            usage[0] = json.dumps({name: vars(stage) for name, stage in self.llm.usage.stages.items()})
        return {"key": batch["key"], "results": results, "usage": usage}


def worker_client(settings: LLMSettings, budget: str, cache_path: str | None) -> Any:
    """A worker's LLM client whose concurrency, rate limits and cache are the run's budget actor."""
    import ray

    from ragtest_core.llm import build_client

    actor = ray.get_actor(budget)
    return build_client(
        settings.spec,
        settings.base_url,
        config=settings.runtime(),
        prices=load_prices(settings.prices),
        cache=SharedCache(actor, Path(cache_path)) if cache_path else None,
        concurrency=SharedConcurrency(actor),
        limits=SharedLimits(actor),
    )


def ray_row_scorer(state: RunState, progress_path: Path) -> RowScorer:
    """A row scorer for `evaluation.evaluate_dataset(row_scorer=...)` that scores on the run's Ray cluster."""

    def score(metrics: Sequence[evaluation.Metric], rows: list[dict[str, Any]]) -> list[dict[str, MetricResult]]:
        config = state.config
        judge = config.resolved_judge()
        llm = [config.llm.spec, config.llm.base_url] if judge == "llm" else []
        settings = judge_settings(judge)["fingerprint"]
        identity = json.dumps(
            [sorted(m.name for m in metrics), config.retrieval_k, judge, config.embedding_model, llm, settings,
             config.max_field_chars]
        )  # fmt: skip
        keys = [row_key(row, identity) for row in rows]
        done = read_progress(progress_path)
        state.stats["rows_resumed"] = sum(1 for key in set(keys) if key in done)
        todo = [
            {"key": key, "row": json.dumps(row, default=jsonable, ensure_ascii=False)}
            for key, row in dict(zip(keys, rows, strict=True)).items()
            if key not in done
        ]
        if todo:
            rows_of = Counter(keys)  # a row that occurs twice is scored once and counts twice
            resumed = len(keys) - sum(rows_of[item["key"]] for item in todo)
            desc = f"scoring ({judge} judge) on Ray"
            bar = tqdm(total=len(keys), initial=resumed, desc=desc, unit="row", disable=not state.show_progress)
            with bar, ray_for(state) as (ray, log):
                for scored in _score_on_ray(ray, log, state, metrics, judge, todo, progress_path, done):
                    bar.update(sum(rows_of[key] for key in scored))
        return [{name: MetricResult.model_validate(value) for name, value in done[key].items()} for key in keys]

    return score


def _score_on_ray(
    ray: Any,
    log: RayLog,
    state: RunState,
    metrics: Sequence[evaluation.Metric],
    judge: str,
    todo: list[dict[str, str]],
    progress_path: Path,
    done: dict[str, dict[str, Any]],
) -> Iterator[list[str]]:
    """Score `todo` on Ray; as each partition comes back, its results go into `done` and the progress file, and its
    row keys are yielded."""
    config = state.config
    budget = name = cache = None
    if judge == "llm" and state.llm is not None:
        name = f"ragtest-llm-budget-{uuid.uuid4().hex[:12]}"
        cache = state.llm.cache.path if state.llm.cache is not None else None
        budget = start_budget(ray, name, state.llm.config, cache)
    partitions = max(1, -(-len(todo) // ROWS_PER_PARTITION))
    scored = ray.data.from_items(todo, override_num_blocks=partitions).map_batches(
        ScorePartition,
        fn_constructor_args=(config, list(metrics), judge, name, str(cache) if cache else None),
        batch_size=ROWS_PER_PARTITION,
        compute=ray.data.ActorPoolStrategy(size=min(worker_count(config.ray_workers), partitions)),
        num_cpus=1,
    )
    try:
        with JsonlAppender(progress_path) as out:
            for batch in log.batches(scored, batch_size=None):
                for key, results, usage in zip(batch["key"], batch["results"], batch["usage"], strict=True):
                    done[str(key)] = json.loads(results)
                    out.append({"key": str(key), "results": done[str(key)]})
                    if usage and state.llm is not None:
                        state.llm.usage.merge(json.loads(usage))
                yield [str(key) for key in batch["key"]]
    finally:
        if budget is not None:
            ray.kill(budget)


def read_progress(path: Path) -> dict[str, dict[str, Any]]:
    """Rows scored by an earlier driver (a torn last line, from a kill mid-write, is dropped)."""
    return {str(e["key"]): e["results"] for e in (read_jsonl(path, torn_tail="skip") if path.exists() else [])}
