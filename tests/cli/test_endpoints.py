"""Every path the client calls is one the gateway serves, spelled as its declaration spells it:
a route of the table (each service's contract.py), or one of the gateway's own endpoints
(OAuth, readiness), which are held to the gateway's router itself."""

from __future__ import annotations

from aiohttp import web

from gateway.edge.route_table import ROUTES
from gateway.identity.oauth.views import setup_oauth_routes
from libs.common.health import add_health_routes
from tests.cli.endpoints import declared


def gateway_own_endpoints() -> set[tuple[str, str]]:
    app = web.Application()
    setup_oauth_routes(app.router)
    add_health_routes(app)
    return {(route.method, route.resource.canonical) for route in app.router.routes() if route.resource is not None}


def test_every_endpoint_of_the_client_is_declared_by_the_gateway():
    table = {(route.method, route.path) for route in ROUTES}
    own = gateway_own_endpoints()
    undeclared = {
        where: f"{e.method} {e.path}" for where, e in declared().items() if (e.method, e.path) not in table | own
    }
    assert undeclared == {}


def test_the_client_declares_the_calls_of_its_commands():
    # The client reaches every route of the contract it has a command for; a count that drops
    # means a command lost its declaration (and, with it, this check).
    table = {(route.method, route.path) for route in ROUTES}
    called = {(e.method, e.path) for e in declared().values()}
    assert len(called & table) >= 36
    assert {("POST", "/api/v1/oauth/token"), ("POST", "/api/v1/oauth/revoke"), ("GET", "/readyz")} <= called


def test_a_path_outside_the_table_is_caught():
    table = {(route.method, route.path) for route in ROUTES}
    assert ("GET", "/api/v1/apps/{id}") not in table | gateway_own_endpoints()
    assert ("GET", "/api/v1/apps/{appId}") in table
