"""Joining or starting Ray once per process, a stage's Ray with its lines in the run folder's log, and how many
workers a stage gets."""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ragtest.distributed.logs import RAY_LOG_FILE, RayLog, logger
from ragtest.run_state import RunState
from ragtest_core.embedding_device import BATCH_ENV, DEVICE_ENV
from ragtest_core.embeddings import BACKEND_ENV, DTYPE_ENV
from ragtest_core.errors import RagtestError

#: What every worker process of a run gets in its environment: no model-hub access, no usage reporting, one
#: embedding thread per CPU Ray gives it.
WORKER_ENV = {
    "HF_HUB_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAGTEST_EMBED_THREADS": "1",
}
#: Set on the driver, these reach every worker as they are (the embedding device, precision, batch and backend).
FORWARDED_ENV = (DEVICE_ENV, DTYPE_ENV, BATCH_ENV, BACKEND_ENV)
_started_here = False


def import_ray() -> Any:
    """Ray, with Ray Data imported (importing it sets up its loggers: before `RayLog.captured` redirects them)."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise RagtestError("--ray needs Ray: pip install 'ragtest[distributed]'") from exc
    return ray


@contextmanager
def ray_for(state: RunState) -> Iterator[tuple[Any, RayLog]]:
    """Ray for one stage of a run (`ensure_ray`), with Ray's lines in the run folder's log (`ragtest.distributed.logs`)
    while the stage runs, and on the console too with `--ray-logs`."""
    log = RayLog(state.run_dir / RAY_LOG_FILE, echo=state.config.ray_logs)
    import_ray()
    with log.captured():
        yield ensure_ray(state.config.ray_address, worker_output=log.echo), log


def ensure_ray(address: str | None, worker_output: bool = False) -> Any:
    """Ray, joined (or started) once per process: `address` "auto" joins the cluster `ray start` runs on this
    machine, or starts a local one; any other address joins that cluster. A Ray this process already joined (a test's
    cluster, a notebook's `ray.init`) is used as it is. `worker_output`: the workers' stdout and stderr are streamed
    to this process's console (else they stay in Ray's session logs). Ray Data shows no progress bars of its own: the
    stages show theirs, per batch."""
    global _started_here
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = import_ray()
    if not ray.is_initialized():
        env = {name: os.environ.get(name, value) for name, value in WORKER_ENV.items()}
        # the embedding runtime's choices travel to a remote cluster's workers too (a local one inherits them)
        env |= {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
        where = {"address": address} if address and address != "auto" else {"include_dashboard": False}
        joined = ray.init(**where, runtime_env={"env_vars": env}, log_to_driver=worker_output)
        _started_here = True
        atexit.register(shutdown)
        session = getattr(joined, "address_info", {}).get("session_dir") or "unknown"
        logger.info("Ray's session folder (its own logs and the workers' output, under logs/): %s", session)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.execution_options.preserve_order = True
    return ray


def shutdown() -> None:
    """Leave (or stop, when this process started it) the Ray this process joined."""
    global _started_here
    if _started_here:
        import ray

        ray.shutdown()
        _started_here = False


def worker_count(requested: int | None = None) -> int:
    """Workers for a stage: `requested`, else one per CPU of the cluster."""
    import ray

    return requested or max(1, int(ray.cluster_resources().get("CPU", 1)))
