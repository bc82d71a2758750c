"""Who may talk to the review page: only this browser session, from this page, on the loopback address.

Other sites open in the same browser can send requests to 127.0.0.1, and a DNS-rebinding page can even read the
replies, so every request must pass, in order:

1. the Host header is 127.0.0.1:PORT or localhost:PORT (a rebound name is refused);
2. a cross-site or same-site fetch (the browser's Sec-Fetch-Site header) is refused, and so is any Origin other
   than the page's own;
3. the session token: the URL `ragtest review` prints carries it once (`/?token=...`); that visit sets an
   HttpOnly, SameSite=Strict cookie and redirects to the same path without it. Every later request must carry the
   cookie, and every request that changes something (POST) must also carry the token in the `X-Ragtest-Token`
   header (the page reads it from its own markup, which other origins cannot) as JSON.

Every reply gets a Content-Security-Policy that allows only the page's own script and style (no inline code, no
other host), no framing, no referrer, and no caching.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "ragtest_review"
TOKEN_HEADER = "x-ragtest-token"
SAFE_METHODS = ("GET", "HEAD")
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


class SessionGuard:
    """ASGI middleware enforcing the rules above for one server (its port and its token)."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    def refusal(self, request: Request) -> str | None:
        """Why `request` is refused, or None."""
        if request.headers.get("host", "") not in self.hosts:
            return "refused: unexpected Host header (the review page answers on 127.0.0.1 only)"
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return "refused: a request from another site"
        if request.headers.get("origin") not in {None, *self.origins}:
            return "refused: a request from another origin"
        return None

    def decide(self, request: Request) -> Response | None:
        """A response that ends the request here (refusal or the token's first visit), or None to go on."""
        if problem := self.refusal(request):
            return PlainTextResponse(problem, status_code=403)
        given = request.query_params.get("token")
        if given is not None and request.method in SAFE_METHODS:
            if not secrets.compare_digest(given, self.token):
                return PlainTextResponse("refused: wrong session token", status_code=403)
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
            return response
        if not secrets.compare_digest(request.cookies.get(COOKIE, ""), self.token):
            return PlainTextResponse(
                "refused: no session. Open the URL that `ragtest review` printed.", status_code=403
            )
        is_json = request.headers.get("content-type", "").split(";")[0].strip() == "application/json"
        token_sent = secrets.compare_digest(request.headers.get(TOKEN_HEADER, ""), self.token)
        if request.method not in SAFE_METHODS and not (token_sent and is_json):
            return PlainTextResponse("refused: a change needs the page's token", status_code=403)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(HEADERS)
            await send(message)

        # the response that ends the request here, else the app
        await (self.decide(Request(scope)) or self.app)(scope, receive, send_with_headers)
