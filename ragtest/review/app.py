"""The review page's routes (Starlette, listed in `ReviewApp.asgi`), rendered from Jinja2 templates with autoescape;
a small local script (`static/review.js`) adds the keyboard and sends each decision or label as it is given.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ragtest.report import environment
from ragtest.review.guard import SessionGuard
from ragtest.review.labelling import Labelling
from ragtest.review.testset_review import TestsetReview, reviewed_path
from ragtest.review.workspace import Workspace
from ragtest_core.errors import RagtestError

STATIC = Path(__file__).parent / "static"
_NAME = re.compile(r"^[\w][\w .@-]{0,39}$")


def labeller_name(text: str) -> str:
    name = " ".join(str(text).split())
    if not _NAME.match(name):
        raise RagtestError("a labeller's name: 1-40 letters, digits, spaces, '.', '@' or '-'")
    return name


class ReviewApp:
    """The page's state (the test set's review, the labelling) and its routes."""

    def __init__(self, workspace: Workspace, token: str, labelling: Labelling | None, reviewer: str = "") -> None:
        self.workspace = workspace
        self.token = token
        self.reviewer = reviewer
        self.review = TestsetReview(workspace.testset) if workspace.testset else None
        self.labelling = labelling
        self.env = environment()

    def render(self, template: str, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.env.get_template(f"review/{template}").render(token=self.token, **context))

    # -- pages ---------------------------------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        work = self.labelling
        labelling = work and {
            "rows_file": str(work.rows_file),
            "labels_file": str(work.store.path),
            "rule": work.rule_text(),
            "order_size": len(work.order),
            "labellers": [
                {"name": p, "done": work.progress(p)[0], "skipped": work.skipped(p)}
                for p in sorted({row["labeller"] for row in work.store.rows()})
            ],
        }
        review = self.review and {
            "testset": str(self.review.testset),
            "reviewed": str(reviewed_path(self.review.testset)),
            "counts": self.review.counts(),
            "rows": len(self.review.rows),
        }
        return self.render("index.html.j2", review=review, labelling=labelling, folder=self.workspace.folder_name)

    async def testset_next(self, request: Request) -> Response:
        index = self._review().next_pending()
        return RedirectResponse(f"/testset/{0 if index is None else index}", status_code=303)

    async def testset_item(self, request: Request) -> Response:
        review = self._review()
        index = int(request.path_params["index"])
        if not 0 <= index < len(review.rows):
            return HTMLResponse("no such question", status_code=404)
        return self.render(
            "testset.html.j2",
            item=review.view(index),
            total=len(review.rows),
            counts=review.counts(),
            previous=index - 1 if index > 0 else None,
            following=index + 1 if index + 1 < len(review.rows) else None,
            reviewed_name=reviewed_path(review.testset).name,
        )

    async def label_start(self, request: Request) -> Response:
        name = labeller_name(request.query_params.get("labeller", ""))
        return RedirectResponse(self._next_label(name), status_code=303)

    async def label_item(self, request: Request) -> Response:
        labelling = self._labelling()
        name = labeller_name(request.path_params["labeller"])
        position = int(request.path_params["position"])
        if not 0 <= position < len(labelling.order):
            return HTMLResponse("no such row", status_code=404)
        item, rule = labelling.view(position, name), labelling.rule_text()
        return self._label_page("label", name, item=item, rule=rule, previous=position - 1 if position > 0 else None)

    async def label_done(self, request: Request) -> Response:
        labelling = self._labelling()
        name = labeller_name(request.path_params["labeller"])
        return self._label_page("done", name, labels_file=str(labelling.store.path), rows_file=str(labelling.rows_file))

    def _label_page(self, page: str, name: str, **context: Any) -> HTMLResponse:
        """A labeller's page, with how far they are."""
        done, total = self._labelling().progress(name)
        skipped = self._labelling().skipped(name)
        return self.render(f"{page}.html.j2", labeller=name, done=done, skipped=skipped, total=total, **context)

    # -- changes -------------------------------------------------------------------------------------------------

    async def testset_decide(self, request: Request) -> Response:
        review = self._review()
        index = int(request.path_params["index"])
        body = await request.json()
        if not 0 <= index < len(review.rows) or body.get("key") != review.keys[index]:
            return JSONResponse({"error": "the test set changed under the page: reload it"}, status_code=409)
        given = {key: body.get(key) for key in ("reason", "question", "ground_truth")}
        entry = review.decide(index, str(body.get("decision") or ""), reviewer=self.reviewer, **given)
        following = review.next_pending(index)
        return JSONResponse({"saved": entry["decision"], "next": "/" if following is None else f"/testset/{following}"})

    async def label_save(self, request: Request) -> Response:
        labelling = self._labelling()
        body = await request.json()
        name = labeller_name(str(body.get("labeller") or ""))
        labelling.save(int(request.path_params["position"]), name, body)
        return JSONResponse({"saved": True, "next": self._next_label(name)})

    # -- plumbing ------------------------------------------------------------------------------------------------

    def _next_label(self, name: str) -> str:
        """The labeller's next page: the first row of the order they have not done, else the end."""
        position = self._labelling().next_position(name)
        return f"/label/{quote(name)}/{'done' if position is None else position}"

    def _review(self) -> TestsetReview:
        if self.review is None:
            raise RagtestError("no test set to review here (give a test set file or a run folder with one)")
        return self.review

    def _labelling(self) -> Labelling:
        if self.labelling is None:
            raise RagtestError("no answers to label here (give a scored run folder or a scored file)")
        return self.labelling

    def asgi(self, port: int) -> SessionGuard:
        """The Starlette app behind the session guard."""

        async def failed(request: Request, exc: Exception) -> Response:
            if request.url.path.startswith("/api/"):
                return JSONResponse({"error": str(exc)}, status_code=400)
            return HTMLResponse(f"<p>{escape(str(exc))}</p>", status_code=400)

        routes = [
            Route("/", self.index),
            Route("/testset", self.testset_next),
            Route("/testset/{index:int}", self.testset_item),
            Route("/api/testset/{index:int}", self.testset_decide, methods=["POST"]),
            Route("/label", self.label_start),
            Route("/label/{labeller}/done", self.label_done),
            Route("/label/{labeller}/{position:int}", self.label_item),
            Route("/api/label/{position:int}", self.label_save, methods=["POST"]),
            Route("/favicon.ico", lambda request: Response(status_code=204)),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]
        app = Starlette(routes=routes, exception_handlers={RagtestError: failed, ValueError: failed})
        return SessionGuard(app, self.token, port)
