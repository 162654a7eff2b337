"""The gateway's HTTP routing: its own endpoints and every route of the table."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from aiohttp import web

from gateway import views
from gateway.contract import PART
from gateway.edge.proxy import Respond, compile_route, forward_to
from gateway.edge.replicas import Replicas, routed_by_organization
from gateway.identity.oauth.views import setup_oauth_routes
from gateway.product_events import internal_product_changes
from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.parts import SEARCH
from libs.contract.route import Route, bind_handlers, register_handlers

_PARAMETER = re.compile(r"{(\w+)}")


def router_path(path: str, paths: Iterable[str]) -> str:
    """`path` as aiohttp's router gets it: a parameter segment does not take a literal segment
    another route has in the same place, so `/content/{id}` leaves `/content/by-path` alone and a
    method `by-path` lacks is a 405 naming only its own methods (aiohttp's `Allow` would otherwise
    add those of `{id}`). The route keeps its plain name (`resource.canonical`) for metrics."""
    original = path.split("/")
    segments = list(original)
    for index, segment in enumerate(original):
        parameter = _PARAMETER.fullmatch(segment)
        if parameter is None:
            continue
        siblings = sorted(
            {
                other[index]
                for other in (candidate.split("/") for candidate in paths)
                if len(other) > index and other[:index] == original[:index] and "{" not in other[index]
            }
        )
        if siblings:
            refused = "|".join(re.escape(sibling) for sibling in siblings)
            segments[index] = f"{{{parameter.group(1)}:(?!(?:{refused})(?:/|$))[^{{}}/]+}}"
    return "/".join(segments)


def setup_routes(
    app: web.Application,
    routes: tuple[Route, ...],
    upstreams: Mapping[str, str],
    search_replicas: Replicas | None = None,
) -> None:
    """The gateway's endpoints, then every route of the table: its own bound to its handlers by
    name (a route or handler left over fails here), the others forwarded to their part (search's
    to the organization's replica, when the replicas are named)."""
    router = app.router
    router.add_get("/.well-known/jwks.json", views.jwks, name="jwks")
    router.add_get("/api/v1/openapi.json", views.openapi_document, name="openapi")
    setup_oauth_routes(router)
    # For the apps service's copy of the products and the events part's webhook events, when the
    # event streams lost some (libs/common/catch_up.py), and the analytics part's analysis of
    # answers (a product's brand).
    register_handlers(
        router, endpoints_of(PART), (internal_product_changes, internal_webhook_changes, views.internal_product_brand)
    )
    own = dict(bind_handlers((route for route in routes if route.upstream == PART), views.HANDLERS))
    paths = {route.path for route in routes}
    for route in routes:
        respond: Respond
        if route in own:
            respond = own[route]
        elif search_replicas is not None and route.upstream == SEARCH.name:
            respond = routed_by_organization(search_replicas, upstreams[route.upstream], route)
        else:
            respond = forward_to(upstreams[route.upstream], route)
        router.add_route(route.method, router_path(route.path, paths), compile_route(route, respond), name=route.name)
