"""One run's shared state and file names: the config, the run directory, timings, stats and the LLM client.

Every arrow of the flow is a file in the run directory (names below), so a run can stop after any stage and be
resumed or re-scored later.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragtest.config import RunConfig
from ragtest.run_lock import RunLock
from ragtest_core.errors import LLMPermanentError, RagtestError
from ragtest_core.llm.progress import llm_progress
from ragtest_core.llm.usage import load_prices

if TYPE_CHECKING:  # annotations only: the client imports LangChain's chat models (seconds of start-up)
    from ragtest_core.llm import LLMClient

TESTSET_FILE = "testset.jsonl"
ANSWERS_FILE = "answers.jsonl"
#: Rows saved as they complete beside an output: answers.jsonl -> answers.partial.jsonl.
PARTIAL_SUFFIX = ".partial.jsonl"
SCORES_FILE = "scores.jsonl"
#: Rows scored so far by a distributed run, so a killed driver resumes (`ragtest.distributed.scoring`).
SCORES_PROGRESS_FILE = "scores.partial.jsonl"
SUMMARY_FILE = "summary.json"
STORE_DIR = "chroma"
CACHE_FILE = "llm_cache.sqlite"
#: Batch mode's record of the provider batches a run submitted (`ragtest_core.llm.batch_journal`).
BATCH_JOURNAL_FILE = "llm_batches.jsonl"


@dataclass
class RunState:
    """What the stages of one run share: the config, the run directory, timings and the LLM client."""

    config: RunConfig
    run_dir: Path
    llm: LLMClient | None = None
    timings: dict[str, float] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    show_progress: bool = True
    #: The summary document (`ragtest.outputs`) once the run has been scored.
    summary: dict[str, Any] | None = None
    #: The run directory's lock, held until `close` (None: not locked, e.g. an in-memory evaluate).
    lock: RunLock | None = None

    def close(self) -> None:
        """Release the run directory for the next run."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> RunState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] = round(self.timings.get(stage, 0.0) + time.perf_counter() - started, 3)

    @contextmanager
    def llm_stage(self, phase: str, expected_calls: int | None) -> Iterator[None]:
        """Usage recorded under `phase`, a bar of its LLM calls, and a permanent LLM error (bad key, unknown
        model) reported as itself, whatever the stage made of it (a writer that gave up, too few questions)."""
        if self.llm is None:
            yield
            return
        llm = self.llm
        with llm_progress(llm.usage, phase, expected_calls, enabled=self.show_progress):
            try:
                yield
            except Exception as exc:
                if llm.fatal is not None and not isinstance(exc, LLMPermanentError):
                    raise LLMPermanentError(str(llm.fatal)) from None
                raise
        if llm.fatal is not None:
            raise LLMPermanentError(str(llm.fatal))


def open_run(config: RunConfig, run_dir: str | Path, show_progress: bool = True, lock: bool = True) -> RunState:
    """Create and lock the run directory (`ragtest.run_lock`: another run on it is refused), then the LLM client
    (None offline), with the cache in the run dir by default. Use it as a context manager, or `close()` it, to
    release the folder."""
    run_path = Path(run_dir)
    if run_path.exists() and not run_path.is_dir():
        raise RagtestError(f"{run_path} is a file, not a folder: pass a folder for the run's outputs")
    run_path.mkdir(parents=True, exist_ok=True)
    held = RunLock(run_path).acquire() if lock else None
    try:
        llm = make_llm(config, run_path)
    except BaseException:
        if held is not None:
            held.release()
        raise
    return RunState(config=config, run_dir=run_path, llm=llm, show_progress=show_progress, lock=held)


def make_llm(config: RunConfig, run_dir: Path) -> LLMClient | None:
    """The run's LLM client from `config.llm` (the runtime settings are the config itself), or None offline."""
    settings = config.llm
    if not settings.configured:
        return None
    from ragtest_core.llm import build_client  # here: it imports LangChain's chat models, which offline runs skip

    cache_dir = Path(settings.cache_dir).expanduser() if settings.cache_dir else run_dir
    return build_client(
        settings.spec,
        settings.base_url,
        cache_path=cache_dir / CACHE_FILE if settings.cache else None,
        config=settings.runtime(),
        prices=load_prices(settings.prices),
        batch_journal=run_dir / BATCH_JOURNAL_FILE,
    )
