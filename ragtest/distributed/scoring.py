"""Scoring on Ray: `map_batches` over row partitions, each worker scoring its rows with
`evaluation.engine.score_records`.

A row's scores depend on nothing but the row, the judge's settings and the models (docs/design.md's scoring rules), so
a row scored on any worker, in any partition, scores what a single process gives it. The driver writes each row's
results to a progress file the moment they arrive (keyed by a hash of the row, the metrics and the judge), and a
driver killed and run again scores only the rows not in it; the results come back in the input's order. Ray
Data restarts a lost worker and runs its partition again (its actor pools default to unlimited restarts and task
retries), so no row is lost.

With the LLM judge every worker's client shares the run's budget (`ragtest.distributed.budget`), and each
partition's token usage is added to the driver's.

The scoring bar moves as each partition comes back; Ray's own lines go to the run folder's ray.log
(`ragtest.distributed.logs`).
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
from ragtest.config import LLMSettings
from ragtest.distributed.budget import SharedCache, SharedConcurrency, SharedLimits, start_budget
from ragtest.distributed.logs import RayLog
from ragtest.distributed.session import ray_for, worker_count
from ragtest.run_state import RunState
from ragtest_core.embeddings import get_embedder
from ragtest_core.llm.usage import StageUsage, load_prices
from ragtest_core.schema import MetricResult

#: Rows a worker scores at a time (a partition).
ROWS_PER_PARTITION = 32
RowScorer = Callable[[Sequence[evaluation.Metric], list[dict[str, Any]]], list[dict[str, MetricResult]]]


def jsonable(value: Any) -> Any:
    """A dataset cell as JSON can carry it (arrays as lists, numpy scalars as numbers)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def row_key(row: dict[str, Any], identity: str) -> str:
    """What a row's scores depend on: the row itself and the scoring identity (metrics, judge, models)."""
    text = json.dumps(row, sort_keys=True, default=jsonable, ensure_ascii=False)
    return hashlib.sha256(f"{identity}\x1f{text}".encode()).hexdigest()


class ScorePartition:
    """A scoring worker: the embedding model (and the LLM client, for the LLM judge) made once."""

    def __init__(
        self,
        metrics: Sequence[evaluation.Metric],
        judge: str,
        model: str,
        llm: LLMSettings | None = None,
        budget: str | None = None,
        cache_path: str | None = None,
        max_field_chars: int | None = None,
    ) -> None:
        self.metrics = list(metrics)
        self.judge = judge
        self.max_field_chars = max_field_chars
        self.embedder = get_embedder(model)
        self.llm = worker_client(llm, budget, cache_path) if llm is not None and budget else None

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        rows = [json.loads(text) for text in batch["row"]]
        stages = self.llm.usage.stages if self.llm is not None else {}
        before = {name: StageUsage(**vars(usage)) for name, usage in stages.items()}
        scored = score_records(rows, self.metrics, self.judge, self.llm, self.embedder, self.max_field_chars)
        results = [json.dumps({name: r.model_dump(mode="json") for name, r in row.items()}) for row in scored]
        usage = [""] * len(rows)
        if self.llm is not None and rows:
            usage[0] = json.dumps(usage_since(before, self.llm.usage.stages))
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


def usage_since(before: dict[str, StageUsage], now: dict[str, StageUsage]) -> dict[str, dict[str, int]]:
    """Per call label, what was added to `now` since `before`."""
    added = {}
    for name, usage in now.items():
        old = before.get(name, StageUsage())
        delta = {field: getattr(usage, field) - getattr(old, field) for field in vars(usage)}
        if any(delta.values()):
            added[name] = delta
    return added


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
            with rows_bar(state, judge, len(keys), resumed) as bar, ray_for(state) as (ray, log):
                for scored in _score_on_ray(ray, log, state, metrics, judge, todo, progress_path, done):
                    bar.update(sum(rows_of[key] for key in scored))
        return [{name: MetricResult.model_validate(value) for name, value in done[key].items()} for key in keys]

    return score


def rows_bar(state: RunState, judge: str, total: int, resumed: int) -> tqdm:
    """The scoring bar: `resumed` rows done from the start, then each partition's as it comes back."""
    desc = f"scoring ({judge} judge) on Ray"
    return tqdm(total=total, initial=resumed, desc=desc, unit="row", disable=not state.show_progress)


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
    workers = worker_count(config.ray_workers)
    kwargs: dict[str, Any] = {"metrics": list(metrics), "judge": judge, "model": config.embedding_model}
    kwargs["max_field_chars"] = config.max_field_chars
    budget = None
    if judge == "llm" and state.llm is not None:
        name = f"ragtest-llm-budget-{uuid.uuid4().hex[:12]}"
        cache = state.llm.cache.path if state.llm.cache is not None else None
        budget = start_budget(ray, name, state.llm.config, cache)
        kwargs |= {"llm": config.llm, "budget": name, "cache_path": str(cache) if cache else None}
    partitions = max(1, -(-len(todo) // ROWS_PER_PARTITION))
    dataset = ray.data.from_items(todo, override_num_blocks=partitions)
    scored = dataset.map_batches(
        ScorePartition,
        fn_constructor_kwargs=kwargs,
        batch_size=ROWS_PER_PARTITION,
        compute=ray.data.ActorPoolStrategy(size=min(workers, partitions)),
        num_cpus=1,
    )
    progress_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with progress_path.open("a", encoding="utf-8") as out:
            for batch in log.batches(scored, batch_size=None):
                for key, results, usage in zip(batch["key"], batch["results"], batch["usage"], strict=True):
                    done[str(key)] = json.loads(results)
                    out.write(json.dumps({"key": str(key), "results": done[str(key)]}) + "\n")
                    if usage and state.llm is not None:
                        state.llm.usage.merge(json.loads(usage))
                out.flush()
                yield [str(key) for key in batch["key"]]
    finally:
        if budget is not None:
            ray.kill(budget)


def read_progress(path: Path) -> dict[str, dict[str, Any]]:
    """Rows scored by an earlier driver (a torn last line, from a kill mid-write, is ignored)."""
    done: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        done[str(entry["key"])] = entry["results"]
    return done
