"""ragtest beyond one machine, on Ray (`pip install 'ragtest[distributed]'`, `--ray [ADDRESS]`).

- `ingest_on_ray`: load, chunk and embed a corpus as a Ray Data pipeline into its store collection (a Chroma server
  with `--store-url`), the embedding model loaded once per worker.
- `ray_row_scorer`: local-judge (or LLM-judge) scoring as `map_batches` over row partitions; a row's scores depend
  on the row alone, so they equal a single-process run's; the order is kept; a killed driver resumes.
- `LLMBudget`: one concurrency limit, rate limiter and reply cache for every worker's LLM calls (a named actor).

Only the stages that import this package need Ray: the rest of ragtest never imports it.
"""

from ragtest.distributed.ingest import ingest_on_ray
from ragtest.distributed.scoring import ray_row_scorer
from ragtest.distributed.session import ensure_ray, shutdown, worker_count

__all__ = ["ensure_ray", "ingest_on_ray", "ray_row_scorer", "shutdown", "worker_count"]
