"""`ragtest review PATH`: a local page to review a generated test set (accept, edit, reject) and to label a run's
answers (faithfulness, correctness, relevant contexts), served on 127.0.0.1 only, behind a per-session token.

    from ragtest.review import Labelling, ReviewServer, resolve
    workspace = resolve("runs/v1")                      # testset.jsonl to review, scores.jsonl to label
    labelling = Labelling(workspace.rows, workspace.labels, rule="random", seed=0)
    with ReviewServer(workspace, labelling) as server:  # a free port on 127.0.0.1, in a background thread
        print(server.url)                               # the URL carries the session token once

The parts: `workspace` (what PATH holds), `testset_review` (decisions and the reviewed test set),
`labelling` (the sampling rule, what a labeller sees, the labels file), `guard` (who may talk to the page),
`app` (routes and templates), `server` (uvicorn on a loopback socket). Names load on first use, so the pipeline
can read a reviewed test set without importing the web server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragtest.review.labelling import Labelling
    from ragtest.review.server import ReviewServer
    from ragtest.review.testset_review import TestsetReview, reviewed_or_original, reviewed_path
    from ragtest.review.workspace import Workspace, resolve

_EXPORTS = {
    "Labelling": "ragtest.review.labelling",
    "ReviewServer": "ragtest.review.server",
    "TestsetReview": "ragtest.review.testset_review",
    "reviewed_or_original": "ragtest.review.testset_review",
    "reviewed_path": "ragtest.review.testset_review",
    "Workspace": "ragtest.review.workspace",
    "resolve": "ragtest.review.workspace",
}
__all__ = [
    "Labelling",
    "ReviewServer",
    "TestsetReview",
    "Workspace",
    "resolve",
    "reviewed_or_original",
    "reviewed_path",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragtest.review' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
