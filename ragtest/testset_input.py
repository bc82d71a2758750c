"""Which vector store answers a test set that a stage starts from: one rule for `answer` (the command and
`ragtest.answer`) and `run --testset`.

A test set's manifest (`ragtest.outputs.input_manifest`: `X.manifest.json`, for a reviewed copy its test set's,
else the folder's manifest.json) records its store as `stats.testset_store` (`ragtest.rag_index.TestsetStore`).
Once a stage has answered the test set, the record names the store folder it used, and every manifest of a later
stage carries it on. So a test set that a run copied into its own folder, or a copy of that copy, still finds the
store it was generated into, wherever it goes; a test set with no such record is answered from the store folder
beside it.
"""

from __future__ import annotations

from pathlib import Path

from ragtest.rag_index import TESTSET_STORE_KEY
from ragtest.run_state import STORE_DIR, RunState


def testset_store_dir(state: RunState, testset: Path, given: Path | None = None) -> Path:
    """The store folder for the test set file `testset`: `given` (`answer --store`), else the one its manifest
    records (inherited into `state.stats` before this is called), else the store folder beside the file. The folder
    chosen is recorded in this stage's stats, so this stage's manifest names it for the next one."""
    record = state.stats.get(TESTSET_STORE_KEY)
    recorded = record.get("store_dir") if isinstance(record, dict) else None
    store_dir = given or (Path(recorded) if recorded else testset.parent / STORE_DIR)
    if isinstance(record, dict):  # the test set's copies keep pointing at the store it was generated into
        record["store_dir"] = str(store_dir.resolve())
    return store_dir
