"""`ragtest review PATH`: a local page to review a generated test set (accept, edit, reject) and to label a run's
answers (faithfulness, correctness, relevant contexts), served on 127.0.0.1 only, behind a per-session token.

    from ragtest.review import Labelling, ReviewServer, resolve
    workspace = resolve("runs/v1")                      # testset.jsonl to review, scores.jsonl to label
    labelling = Labelling(workspace.rows, workspace.labels, rule="random", seed=0)
    with ReviewServer(workspace, labelling) as server:  # a free port on 127.0.0.1, in a background thread
        print(server.url)                               # the URL carries the session token once

The web server loads on first use of `ReviewServer`, so the pipeline reads a reviewed test set without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragtest.review.labelling import Labelling
from ragtest.review.testset_review import TestsetReview
from ragtest.review.workspace import Workspace, resolve

if TYPE_CHECKING:
    from ragtest.review.server import ReviewServer

__all__ = ["Labelling", "ReviewServer", "TestsetReview", "Workspace", "resolve"]


def __getattr__(name: str) -> Any:
    if name != "ReviewServer":
        raise AttributeError(f"module 'ragtest.review' has no attribute {name!r}")
    from ragtest.review.server import ReviewServer  # starlette and uvicorn: only for the page itself

    return ReviewServer
