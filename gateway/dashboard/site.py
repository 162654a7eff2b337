"""The dashboard's pages, added to the gateway's router behind the API.

`mount_dashboard(app)` adds every page to the gateway's router with aiohttp's public API, after
every route of the gateway's own (the API, OAuth, health, `/internal/`): its pages live at
`/login`, `/docs`, `/device` and under each organization's slug, so they share no prefix a
sub-application could be mounted under. A path the API serves is the API's, whatever the method;
an organization's slug never is one of the API's first segments (`organization.ORG`). What no
route takes stays the gateway's JSON 404.

The dashboard's middleware, which runs for its pages alone (a route named `dashboard.*`), checks
the CSRF token of every POST, renders errors as HTML pages instead of JSON envelopes (a method a
page lacks included: its own 405 page), and adds the headers pages need (no caching: pages carry
secrets and tokens; no framing; a strict CSP); the files pages load are answered by
gateway/edge/assets.py with their own caching (static_files.py). The gateway's own middlewares
(request id, security headers, metrics, error envelope, the session) run first, as on every request.

Adding a page: write its handlers in a module of this package with an `add_routes(router)` that
adds them (name them `dashboard.<page>`), and call it in `add_pages` below. A handler reads the
gateway's state (`DB_POOL`, `REDIS`, `SETTINGS`, `CLOCK`, ...) through `request.config_dict`.
"""

from __future__ import annotations

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler

from gateway.dashboard import (
    api_keys,
    app_actions,
    app_forms,
    apps,
    audit,
    device_approval,
    fallback,
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
    webhook_forms,
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


def is_page(request: web.Request) -> bool:
    """Whether the request was routed to a page of the dashboard."""
    name = request.match_info.route.name
    return name is not None and name.startswith(ROUTE_PREFIX)


@web.middleware
async def dashboard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The dashboard's middleware: it acts on its pages alone, every other request passes as it came."""
    if not is_page(request):
        return await handler(request)
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


async def method_not_allowed(request: web.Request) -> web.StreamResponse:
    """A method the page's path has no handler for: the dashboard's 405 page."""
    raise web.HTTPMethodNotAllowed(request.method, ())


def add_pages(router: web.UrlDispatcher) -> None:
    static_files.add_routes(router)
    signin.add_routes(router)
    reference.add_routes(router)
    device_approval.add_routes(router)
    api_keys.add_routes(router)
    members.add_routes(router)
    invitations.add_routes(router)
    security.add_routes(router)
    audit.add_routes(router)
    webhook_forms.add_routes(router)
    products.add_routes(router)
    visibility.add_routes(router)
    numbers.add_routes(router)
    app_forms.add_routes(router)  # before apps: `apps/new` is no app id
    apps.add_routes(router)
    traffic.add_routes(router)
    app_actions.add_routes(router)
    simulations.add_routes(router)
    organization.add_routes(router)
    fallback.add_routes(router)  # last: what no page above serves


def mount_dashboard(app: web.Application) -> None:
    """Add the dashboard's pages to `app`, behind every route `app` has (call it last), with their
    templates and their middleware; each page's path answers any other method with its 405 page."""
    setup_templates(app)
    app.middlewares.append(dashboard_middleware)
    before = set(app.router.resources())
    add_pages(app.router)
    # A path's methods may be spread over several resources (one per route name): the last one
    # of each path takes every other method.
    last = {resource.canonical: resource for resource in app.router.resources() if resource not in before}
    for resource in last.values():
        if isinstance(resource, web.Resource):
            resource.add_route(hdrs.METH_ANY, method_not_allowed)
