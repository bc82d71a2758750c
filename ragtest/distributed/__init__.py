"""ragtest beyond one machine, on Ray (`pip install 'ragtest[distributed]'`, `--ray [ADDRESS]`; docs/scale.md):
ingest as a Ray Data pipeline (`ingest_on_ray`), scoring over row partitions (`ray_row_scorer`), and one LLM budget
for every worker (`budget`). Only the stages that import this package need Ray: the rest of ragtest never imports it.
"""

from ragtest.distributed.ingest import ingest_on_ray
from ragtest.distributed.scoring import ray_row_scorer
from ragtest.distributed.session import ensure_ray, shutdown, worker_count

__all__ = ["ensure_ray", "ingest_on_ray", "ray_row_scorer", "shutdown", "worker_count"]
