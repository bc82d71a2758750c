"""Joining or starting Ray once per process, and how many workers a stage gets."""

from __future__ import annotations

import atexit
import logging
import os
from typing import Any

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
_started_here = False


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RagtestError("--ray needs Ray: pip install 'ragtest[distributed]'") from exc
    return ray


def ensure_ray(address: str | None, show_progress: bool = False) -> Any:
    """Ray, joined (or started) once per process: `address` "auto" joins the cluster `ray start` runs on this
    machine, or starts a local one; any other address joins that cluster. A Ray this process already joined (a test's
    cluster, a notebook's `ray.init`) is used as it is."""
    global _started_here
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = import_ray()
    if not ray.is_initialized():
        env = {name: os.environ.get(name, value) for name, value in WORKER_ENV.items()}
        options: dict[str, Any] = {"runtime_env": {"env_vars": env}, "log_to_driver": show_progress}
        if address and address != "auto":
            ray.init(address=address, **options)
        else:
            ray.init(include_dashboard=False, **options)
        _started_here = True
        atexit.register(shutdown)
    import ray.data

    if not show_progress:
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.WARNING)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = show_progress
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
    if requested:
        return requested
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))
