"""The dashboard's wiring: templates, static files, routes and the middleware every page shares.

Dashboard routes are named `dashboard.*`. For them, `dashboard_middleware` checks the CSRF
token of every POST, renders errors as HTML pages instead of JSON envelopes, and adds the
headers pages need (no caching: pages carry secrets and tokens; no framing; a strict CSP).
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler

from gateway.dashboard import (
    api_keys,
    apps,
    device_approval,
    members,
    organization,
    products,
    reference,
    security,
    signin,
)
from gateway.dashboard.csrf import verify_csrf
from gateway.dashboard.render import render, setup_templates
from libs.common.errors import ApiError, InternalError

STATIC = Path(__file__).parent / "static"
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


def _is_dashboard(request: web.Request) -> bool:
    name = request.match_info.route.name
    return name is not None and name.startswith(ROUTE_PREFIX)


async def _error_page(request: web.Request, status: int, message: str) -> web.Response:
    title = ERROR_TITLES.get(status, "Something went wrong")
    return await render(request, "error.html", {"status": status, "title": title, "message": message}, status=status)


@web.middleware
async def dashboard_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not _is_dashboard(request):
        return await handler(request)
    try:
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


def setup_dashboard(app: web.Application) -> None:
    setup_templates(app)
    router = app.router
    router.add_static("/static/", STATIC, name=ROUTE_PREFIX + "static")
    signin.add_routes(router)
    reference.add_routes(router)
    device_approval.add_routes(router)
    # Last: `/{org}/...` takes any first segment.
    api_keys.add_routes(router)
    members.add_routes(router)
    security.add_routes(router)
    products.add_routes(router)
    apps.add_routes(router)
    organization.add_routes(router)
