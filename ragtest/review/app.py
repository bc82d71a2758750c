"""The review page's routes (Starlette), rendered from Jinja2 templates with autoescape; a small local script
(`static/review.js`) adds the keyboard and sends each decision or label as it is given.

    GET  /                          what there is to do: the test set's review, labelling per labeller
    GET  /testset[/{i}]             one question of the test set (the next pending one without i)
    POST /api/testset/{i}           accept / edit / reject it
    GET  /label?labeller=NAME       the labeller's next row in the stated order
    GET  /label/{name}/{p}          the row at place p of the order (question, reference, answer, contexts)
    POST /api/label/{p}             the labeller's labels of that row (or a skip)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ragtest.review.guard import SessionGuard
from ragtest.review.labelling import Labelling
from ragtest.review.testset_review import TestsetReview, reviewed_path
from ragtest.review.workspace import Workspace
from ragtest_core.errors import RagtestError

STATIC = Path(__file__).parent / "static"
_NAME = re.compile(r"^[\w][\w .@-]{0,39}$")


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("ragtest", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


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
        page = self.env.get_template(f"review/{template}").render(token=self.token, **context)
        return HTMLResponse(page)

    # -- pages ---------------------------------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        labelling = None
        if self.labelling is not None:
            people = sorted({row["labeller"] for row in self.labelling.store.rows()})
            labelling = {
                "rows_file": str(self.labelling.rows_file),
                "labels_file": str(self.labelling.store.path),
                "rule": self.labelling.rule_text(),
                "order_size": len(self.labelling.order),
                "labellers": [
                    {"name": p, "done": self.labelling.progress(p)[0], "skipped": self.labelling.skipped(p)}
                    for p in people
                ],
            }
        review = None
        if self.review is not None:
            review = {
                "testset": str(self.review.testset),
                "reviewed": str(reviewed_path(self.review.testset)),
                "counts": self.review.counts(),
                "rows": len(self.review.rows),
            }
        return self.render("index.html.j2", review=review, labelling=labelling, folder=self.workspace.folder_name)

    async def testset_next(self, request: Request) -> Response:
        review = self._review()
        index = review.next_pending()
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
        labelling = self._labelling()
        try:
            name = labeller_name(request.query_params.get("labeller", ""))
        except RagtestError as exc:
            return HTMLResponse(str(exc), status_code=400)
        position = labelling.next_position(name)
        target = "done" if position is None else str(position)
        return RedirectResponse(f"/label/{quote(name)}/{target}", status_code=303)

    async def label_item(self, request: Request) -> Response:
        labelling = self._labelling()
        name = labeller_name(request.path_params["labeller"])
        position = int(request.path_params["position"])
        if not 0 <= position < len(labelling.order):
            return HTMLResponse("no such row", status_code=404)
        done, total = labelling.progress(name)
        return self.render(
            "label.html.j2",
            item=labelling.view(position, name),
            labeller=name,
            done=done,
            skipped=labelling.skipped(name),
            total=total,
            rule=labelling.rule_text(),
            previous=position - 1 if position > 0 else None,
        )

    async def label_done(self, request: Request) -> Response:
        labelling = self._labelling()
        name = labeller_name(request.path_params["labeller"])
        done, total = labelling.progress(name)
        return self.render(
            "done.html.j2",
            labeller=name,
            done=done,
            skipped=labelling.skipped(name),
            total=total,
            labels_file=str(labelling.store.path),
            rows_file=str(labelling.rows_file),
        )

    # -- changes -------------------------------------------------------------------------------------------------

    async def testset_decide(self, request: Request) -> Response:
        review = self._review()
        index = int(request.path_params["index"])
        body = await request.json()
        if not 0 <= index < len(review.rows) or body.get("key") != review.keys[index]:
            return JSONResponse({"error": "the test set changed under the page: reload it"}, status_code=409)
        entry = review.decide(
            index,
            str(body.get("decision") or ""),
            reviewer=self.reviewer,
            reason=body.get("reason"),
            question=body.get("question"),
            ground_truth=body.get("ground_truth"),
        )
        following = review.next_pending(index)
        return JSONResponse({"saved": entry["decision"], "next": "/" if following is None else f"/testset/{following}"})

    async def label_save(self, request: Request) -> Response:
        labelling = self._labelling()
        position = int(request.path_params["position"])
        body = await request.json()
        name = labeller_name(str(body.get("labeller") or ""))
        labelling.save(position, name, body)
        following = labelling.next_position(name)
        target = "done" if following is None else str(following)
        return JSONResponse({"saved": True, "next": f"/label/{quote(name)}/{target}"})

    # -- plumbing ------------------------------------------------------------------------------------------------

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
