"""Every public route is declared once, in its part's contract, and served as declared."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from importlib import import_module

import pytest

from gateway.edge.route_table import ROUTES
from libs.contract.parts import GATEWAY, PARTS, PERSONAS, ROOT, SERVICES, Part
from libs.contract.route import ContractMismatch, Route
from tests.conftest import build_app

PUBLIC_PREFIX = "/api/v1/"
# OAuth's own endpoints (gateway/identity/oauth): no credential and OAuth's answer shape, so not operations
# of the contract's route model; RFC 8414 metadata describes them.
OAUTH_PREFIX = "/api/v1/oauth/"
# Apps are built, never started: nothing connects to it.
UNUSED_DATABASE = "postgresql://nobody@127.0.0.1:1/none"


def registered_public_routes(part: Part, environ: dict[str, str]) -> dict[tuple[str, str], str | None]:
    """(method, path) → route name of every public route the part's app registers (built, not started)."""
    app = build_app(part, {**environ, "DATABASE_URL": UNUSED_DATABASE})
    return {
        (route.method, route.resource.canonical): route.name
        for route in app.router.routes()
        if route.resource is not None
        and route.resource.canonical.startswith(PUBLIC_PREFIX)
        and route.method != "HEAD"  # aiohttp adds HEAD beside every GET
        and route.resource.canonical != "/api/v1/openapi.json"  # a document for tools, not an operation
        and not route.resource.canonical.startswith(OAUTH_PREFIX)
    }


def declared(part: Part) -> dict[tuple[str, str], str]:
    return {(route.method, route.path): route.name for route in ROUTES if route.upstream == part.name}


def test_no_method_and_path_or_name_is_declared_twice():
    twice = [key for key, count in Counter((route.method, route.path) for route in ROUTES).items() if count > 1]
    names = [name for name, count in Counter(route.name for route in ROUTES).items() if count > 1]
    assert (twice, names) == ([], [])


def test_every_route_names_a_part_and_documents_its_answer():
    parts = {part.name for part in PARTS}
    assert [route.name for route in ROUTES if route.upstream not in parts] == []
    # A JSON answer by its schema; any other (an App's llms.txt) by its media type.
    assert [route.name for route in ROUTES if route.response is None and route.enveloped] == []
    assert [route.name for route in ROUTES if not route.path.startswith(PUBLIC_PREFIX)] == []


@pytest.mark.parametrize("part", SERVICES, ids=lambda part: part.name)
def test_a_service_registers_exactly_its_declared_routes(part: Part, base_environ):
    assert registered_public_routes(part, base_environ) == declared(part)


def test_the_gateway_serves_every_declared_route(base_environ):
    everything = {(route.method, route.path): route.name for route in ROUTES}
    assert registered_public_routes(GATEWAY, base_environ) == everything


def test_the_gateway_table_imports_declarations_only():
    probe = (
        "import sys, gateway.edge.route_table; print(sorted(m for m in sys.modules if m.startswith('services.')"
        " and m.rsplit('.', 1)[-1] in ('views', 'queries', 'routes', 'app')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("part", SERVICES, ids=lambda part: part.name)
def test_a_declared_route_without_its_handler_fails_at_startup(part: Part, base_environ, monkeypatch):
    routes = import_module(f"{part.package}.routes")
    first, *others = routes.HANDLERS
    name = first.__name__
    monkeypatch.setattr(routes, "HANDLERS", tuple(others))
    with pytest.raises(ContractMismatch, match=f"routes without a handler: \\['{name}'\\]"):
        build_app(part, {**base_environ, "DATABASE_URL": UNUSED_DATABASE})


def test_a_handler_without_a_declared_route_fails_at_startup(base_environ, monkeypatch):
    contract = import_module("services.personas.contract")
    kept = tuple(route for route in contract.ROUTES if route.name != "topics_create")
    monkeypatch.setattr(contract, "ROUTES", kept)
    with pytest.raises(ContractMismatch, match=r"handlers without a route: \['topics_create'\]"):
        build_app(PERSONAS, {**base_environ, "DATABASE_URL": UNUSED_DATABASE})


def test_the_gateway_refuses_its_own_route_without_a_handler(base_environ):
    orphan = Route("GET", "/api/v1/orphan", GATEWAY.name, "products:read", "orphan", "No handler", tag="Products")
    with pytest.raises(ContractMismatch, match=r"routes without a handler: \['orphan'\]"):
        build_app(GATEWAY, {**base_environ, "DATABASE_URL": UNUSED_DATABASE}, routes=(*ROUTES, orphan))
