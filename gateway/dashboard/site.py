"""The dashboard: an aiohttp application of its own, mounted in the gateway behind the API.

`mount_dashboard(app)` builds the dashboard application and mounts it with a rule rather than a
path prefix (its pages live at `/login`, `/docs`, `/device` and under each organization's slug):
the gateway's router first tries every route of its own (the API, OAuth, health, `/internal/`),
and only a request none of them takes is offered to the dashboard, which takes it when one of its
routes does. So the dashboard's middleware never runs on an API request, an API path is never
shadowed by a page, and no route depends on the order it was registered in. What no route takes
stays the gateway's JSON 404.

The dashboard's middleware checks the CSRF token of every POST, renders errors as HTML pages
instead of JSON envelopes, and adds the headers pages need (no caching: pages carry secrets and
tokens; no framing; a strict CSP); the files pages load are answered by gateway/assets.py with
their own caching (static_files.py). The gateway's own middlewares (request id, security headers,
metrics, error envelope, the session) run first, as on every request.

Adding a page: write its handlers in a module of this package with an `add_routes(router)` that
adds them (name them `dashboard.<page>`), and call it in `create_dashboard` below. A handler reads
the gateway's state (`DB_POOL`, `REDIS`, `SETTINGS`, `CLOCK`, ...) through `request.config_dict`,
which looks through the dashboard's application to the gateway's; `request.app` is the
dashboard's own and holds only its templates.
"""

from __future__ import annotations

from functools import partial

from aiohttp import web
from aiohttp.typedefs import Handler
from aiohttp.web_urldispatcher import AbstractRuleMatching, MatchedSubAppResource, _InfoDict

from gateway.dashboard import (
    api_keys,
    app_actions,
    apps,
    audit,
    device_approval,
    invitations,
    members,
    numbers,
    organization,
    products,
    reference,
    security,
    signin,
    simulations,
    static_files,
    traffic,
    visibility,
)
from gateway.dashboard.csrf import verify_csrf
from gateway.dashboard.render import render, setup_templates
from gateway.dashboard.visitors import admit_visitor
from libs.common.errors import ApiError, InternalError

ROUTE_PREFIX = "dashboard."

ERROR_TITLES = {
    400: "Bad request",
    403: "Not allowed",
    404: "Page not found",
    405: "Not allowed",
    409: "Not possible now",
    413: "Too large",
    422: "Not accepted",
    429: "Too many attempts",
    502: "A service did not answer",
    503: "Not available right now",
    504: "A service took too long",
}
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none';"
    " base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


async def _error_page(request: web.Request, status: int, message: str) -> web.Response:
    title = ERROR_TITLES.get(status, "Something went wrong")
    return await render(request, "error.html", {"status": status, "title": title, "message": message}, status=status)


@web.middleware
async def dashboard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The dashboard application's only middleware: it sees dashboard requests alone."""
    try:
        await admit_visitor(request)  # before anything else: a flood costs no more than this
        if request.method == "POST":
            await verify_csrf(request)
        response = await handler(request)
    except ApiError as exc:
        if isinstance(exc, InternalError):
            raise
        # A part that is down or slow is a page too (502, 503, 504), with its Retry-After.
        response = await _error_page(request, exc.status, exc.message)
        response.headers.update(exc.headers or {})
    except web.HTTPException as exc:
        if exc.status < 400 or exc.status >= 500:
            raise
        response = await _error_page(request, exc.status, exc.reason)
    response.headers.setdefault("Cache-Control", "no-store")
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


class ServedBy(AbstractRuleMatching):
    """A mount rule: a request belongs to the application whose router has a route for its path
    (a method that route lacks included: that is the page's own 405)."""

    def __init__(self, app: web.Application) -> None:
        self._app = app

    async def match(self, request: web.Request) -> bool:
        exception = (await self._app.router.resolve(request)).http_exception
        return exception is None or isinstance(exception, web.HTTPMethodNotAllowed)

    def get_info(self) -> _InfoDict:
        return {"app": self._app}

    @property
    def canonical(self) -> str:
        return "/"


def create_dashboard() -> web.Application:
    dashboard = web.Application(middlewares=(dashboard_middleware,))
    setup_templates(dashboard)
    router = dashboard.router
    static_files.add_routes(router)
    signin.add_routes(router)
    reference.add_routes(router)
    device_approval.add_routes(router)
    api_keys.add_routes(router)
    members.add_routes(router)
    invitations.add_routes(router)
    security.add_routes(router)
    audit.add_routes(router)
    products.add_routes(router)
    visibility.add_routes(router)
    numbers.add_routes(router)
    apps.add_routes(router)
    traffic.add_routes(router)
    app_actions.add_routes(router)
    simulations.add_routes(router)
    organization.add_routes(router)
    return dashboard


def mount_dashboard(app: web.Application) -> web.Application:
    """Mount the dashboard in `app`, behind every route of `app`'s own; returns the dashboard.

    aiohttp mounts a sub-application under a path prefix (`add_subapp`) or under a rule
    (`add_domain`, whose rule is the host); this is the latter's mount with the rule above. It
    names `Application._add_subapp`, which aiohttp keeps private: the lock pins aiohttp, and
    tests/gateway/test_dashboard_mount.py resolves every API route and every page through it."""
    dashboard = create_dashboard()
    app._add_subapp(partial(MatchedSubAppResource, ServedBy(dashboard), dashboard), dashboard)
    return dashboard
