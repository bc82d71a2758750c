"""Serving the review page on the loopback address: a socket bound to 127.0.0.1 (a free port unless one is
asked for), uvicorn on it: `serve()` in the foreground until Ctrl+C (the CLI), `start()` in a background thread."""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
import webbrowser

import uvicorn

from ragtest.review.app import ReviewApp
from ragtest.review.labelling import Labelling
from ragtest.review.workspace import Workspace
from ragtest_core.errors import RagtestError

HOST = "127.0.0.1"


class ReviewServer:
    """One review page on its own port and token."""

    def __init__(
        self, workspace: Workspace, labelling: Labelling | None = None, port: int = 0, reviewer: str = ""
    ) -> None:
        try:  # port 0: a free one the system picks
            self.socket = socket.create_server((HOST, port), backlog=64)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else exc  # without create_server's "(while attempting ...)"
            raise RagtestError(f"cannot listen on {HOST}:{port}: {reason}") from None
        self.socket.setblocking(False)
        self.port = int(self.socket.getsockname()[1])
        self.token = secrets.token_urlsafe(24)
        self.app = ReviewApp(workspace, self.token, labelling, reviewer)
        config = uvicorn.Config(self.app.asgi(self.port), log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """The URL to open: it carries the session token once."""
        return f"{self.base}/?token={self.token}"

    def serve(self, open_browser: bool = False) -> None:
        """Run in the foreground until interrupted."""
        if open_browser:
            threading.Timer(0.5, webbrowser.open, args=(self.url,)).start()
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.socket.close()

    def start(self, timeout_s: float = 10.0) -> ReviewServer:
        """Run in a background thread; return once it accepts connections."""
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RagtestError("the review server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.socket.close()

    def __enter__(self) -> ReviewServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
