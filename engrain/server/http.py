"""The networked transports (docs/SPEC.md §2–§3): streamable HTTP at /mcp and legacy SSE, with bearer tokens.

Every MCP request needs `Authorization: Bearer <token>`; ENGRAIN_TOKENS maps the token to the
user, and AppState.user() reads it for every call (a tool argument never decides the user).
A missing or unknown token gets 401 from the SDK's auth middleware. `/healthz` (no token)
checks the database; `/metrics` (Prometheus text) needs a token unless ENGRAIN_METRICS_PUBLIC=1.
One AppState per process: one engine, one job loop, whatever the number of connections.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Literal

import anyio
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from engrain import metrics
from engrain.server.app import create_server
from engrain.server.connections import guarded_protocol, limits_for
from engrain.server.state import AppState
from engrain.server.tokens import StaticTokenVerifier, bearer_token
from engrain.server.ui import mounted_ui
from engrain.web.sessions import Sessions

log = logging.getLogger(__name__)
Transport = Literal["http", "sse"]
MCP_PATHS = {"http": "/mcp", "sse": "/sse"}
HEALTH_TIMEOUT = 3.0


# A bearer token that is given but not known (KnownTokens, /metrics).
UNKNOWN_TOKEN = JSONResponse(
    {
        "error": "invalid_token",
        "error_description": "this bearer token is not known to this server "
        "(check the client's Authorization header and ENGRAIN_TOKENS)",
    },
    status_code=403,
    headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")


def _listed(setting: str | None) -> list[str]:
    return [part.strip() for part in (setting or "").split(",") if part.strip()]


def transport_security(host: str, allowed_hosts: str | None, allowed_origins: str | None) -> TransportSecuritySettings:
    """DNS-rebinding protection on every bind: the Host must be a loopback name, the address bound, or one
    of ENGRAIN_ALLOWED_HOSTS, and a browser's Origin a loopback one or one of ENGRAIN_ALLOWED_ORIGINS.
    Binding 0.0.0.0 (Docker) publishes the port, not the trust: a page on another origin still gets 403."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
    if host not in (*LOOPBACK, *WILDCARD_BINDS):
        name = f"[{host}]" if ":" in host else host
        hosts += [name, f"{name}:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts + _listed(allowed_hosts),
        allowed_origins=origins + _listed(allowed_origins),
    )


def build_app(app: AppState, transport: Transport, host: str, port: int) -> Starlette:
    """The ASGI application of one server process."""
    verifier = StaticTokenVerifier.from_setting(app.settings.tokens)
    public = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    server = create_server(
        app,
        one_user=False,
        token_verifier=verifier,
        # Static bearer tokens, nothing else: no OAuth. The SDK wants an issuer; without a resource server URL
        # it advertises no OAuth metadata (no /.well-known/oauth-protected-resource, no `resource_metadata` in
        # WWW-Authenticate), so a client given a wrong token reports a wrong token instead of starting an
        # OAuth flow this server does not support (the Inspector: "Interactive OAuth requires a TTY").
        auth=AuthSettings(issuer_url=AnyHttpUrl(public), resource_server_url=None, validate_token_resource=False),
    )
    security = transport_security(host, app.settings.allowed_hosts, app.settings.allowed_origins)
    mcp_app = (
        server.streamable_http_app(host=host, transport_security=security)
        if transport == "http"
        else server.sse_app(host=host, transport_security=security)
    )

    async def healthz(_: Request) -> Response:
        try:
            with anyio.fail_after(HEALTH_TIMEOUT):
                await (await app.database()).ping()
        except Exception as exc:
            return JSONResponse(
                {"status": "unavailable", "database": f"{type(exc).__name__}: {exc}"[:300]}, status_code=503
            )
        return JSONResponse({"status": "ok", "database": "ok"})

    async def metrics_endpoint(request: Request) -> Response:
        if not app.settings.metrics_public:
            token = bearer_token(request.headers.get("authorization"))
            if token is None:
                return JSONResponse(
                    {"error": "invalid_token", "error_description": "a bearer token is required"},
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="engrain"'},
                )
            if verifier.user_of(token) is None:
                return UNKNOWN_TOKEN
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncGenerator[None, None]:
        # The server holds the state for its whole life (SSE sessions come and go); the MCP app's own
        # lifespan (streamable HTTP's session manager) runs inside.
        app.acquire()
        metrics.watch_pool(lambda: db.engine.pool if (db := app.database_if_open()) is not None else None)
        try:
            async with mcp_app.router.lifespan_context(mcp_app):
                yield
        finally:
            await app.release()

    async def to_page(_: Request) -> Response:
        return RedirectResponse("/ui/", status_code=307)

    page = mounted_ui(app, Sessions(), signin=verifier)
    return Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
            # The page (engrain/web): each user signs in with their bearer token and sees only their own data;
            # its Host and Origin are checked as /mcp's are.
            Route("/ui", to_page, methods=["GET"]),
            Mount(page.path, app=HostAndOrigin(page.app, security), routes=None),
            Mount("/", app=KnownTokens(mcp_app, verifier)),
        ],
        lifespan=lifespan,
    )


class KnownTokens:
    """A bearer token that is given but not known is refused with 403 and says so. The SDK's auth answers 401,
    which MCP clients take as "start OAuth" (the Inspector: "Interactive OAuth requires a TTY"), and this
    server has no OAuth: a wrong token must read as a wrong token. A request with no token still gets the
    SDK's 401."""

    def __init__(self, app: ASGIApp, verifier: StaticTokenVerifier) -> None:
        self.app, self.verifier = app, verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            token = bearer_token(Request(scope).headers.get("authorization"))
            if token is not None and self.verifier.user_of(token) is None:
                await UNKNOWN_TOKEN(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HostAndOrigin:
    """The MCP transports' DNS-rebinding check (a Host not allowed: 421; an Origin not allowed: 403) in front of
    another application: the page over HTTP answers a name like `evil.example` exactly as /mcp does."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self.check = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (refused := await self.check.validate_request(Request(scope))) is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


def serve_http(app: AppState, transport: Transport, host: str, port: int) -> None:
    """Run until interrupted (uvicorn handles SIGINT/SIGTERM)."""
    import uvicorn

    asgi = build_app(app, transport, host, port)
    settings = app.settings
    limits = limits_for(settings.http_max_connections, settings.http_head_timeout, settings.http_body_timeout)
    log.info("engrain over %s at http://%s:%d%s", transport, host, port, MCP_PATHS[transport])
    uvicorn.run(
        asgi,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=guarded_protocol(limits),
        backlog=limits.backlog,
        timeout_keep_alive=int(max(1, settings.http_idle_timeout)),
    )
