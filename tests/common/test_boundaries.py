"""Every boundary is declared once: the parts list and the internal endpoints live on the ground
floor (libs/contract), servers register exactly what is declared, and no caller writes another
part's address by hand."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Annotated, get_args, get_origin, is_typeddict

import pytest
from marshmallow import Schema

from libs.contract.internal import ENDPOINTS, OAUTH, Endpoint, endpoints_of
from libs.contract.internal_bodies import Owned, Text
from libs.contract.parts import CONTENT, GATEWAY, PARTS, ROOT, Part
from libs.contract.route import ContractMismatch
from tests.answer_shapes import owned_schema
from tests.conftest import build_app

# The parts and their shared libraries; deploy/, bench/ and tests/ stand above them.
PRODUCT_PACKAGES = ("libs", "gateway", "services", "cli")
# Who may import the deployment: itself, and its own tests (docs/architecture.md, "Boundaries").
DEPLOYMENT, DEPLOYMENT_TESTS = ROOT / "deploy", ROOT / "tests" / "deploy"
UNUSED_DATABASE = "postgresql://nobody@127.0.0.1:1/none"
# A path of an internal endpoint or of an OAuth endpoint, in a string or f-string.
HAND_WRITTEN_PATH = re.compile(r"/internal/[\w{]|/api/v1/oauth/|/\.well-known/oauth-authorization-server|^/device$")


def product_modules() -> list[Path]:
    return sorted(path for package in PRODUCT_PACKAGES for path in (ROOT / package).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


def imports_the_deployment(path: Path) -> bool:
    return any(name == "deploy" or name.startswith("deploy.") for name in imported_modules(path))


def repository_modules() -> list[Path]:
    """Every Python module of the repository (not of environments, data or caches under it)."""
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not any(
            part.startswith(".") or part in ("__pycache__", "node_modules") for part in path.relative_to(ROOT).parts
        )
    )


def test_no_module_outside_the_deployment_imports_it():
    """The product, the benchmarks and the tests use the deployment's commands, never its modules:
    what they share with it lives in libs/ (libs/common/bootstrap.py, libs/local/). Only deploy's
    own tests (tests/deploy/) import what they test."""
    modules = repository_modules()
    assert ROOT / "tests" / "conftest.py" in modules and ROOT / "bench" / "common.py" in modules
    importing = [
        str(path.relative_to(ROOT))
        for path in modules
        if DEPLOYMENT not in path.parents and DEPLOYMENT_TESTS not in path.parents and imports_the_deployment(path)
    ]
    assert importing == []


def test_the_shared_libraries_import_no_part():
    """libs/ is the ground floor: no module of it imports the gateway, a service, the client or the deployment."""
    above = ("gateway", "services", "aivis", "cli", "deploy", "bench", "tests")
    importing = {
        str(path.relative_to(ROOT)): sorted(name for name in imported_modules(path) if name.split(".")[0] in above)
        for path in (ROOT / "libs").rglob("*.py")
    }
    assert {path: names for path, names in importing.items() if names} == {}


def test_no_service_imports_the_gateway():
    """A request flows one way, gateway → service, and so do imports: what a service shares with the
    gateway lives in libs/ (the examples of the reference, libs/common/openapi_examples.py; the
    `api_key.*` events the event catalog lists, libs/contract/api_keys.py)."""
    importing = {
        str(path.relative_to(ROOT)): sorted(name for name in imported_modules(path) if name.split(".")[0] == "gateway")
        for path in (ROOT / "services").rglob("*.py")
    }
    assert {path: names for path, names in importing.items() if names} == {}


def string_literals(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module with their lines, docstrings and other bare strings left out."""
    tree = ast.parse(path.read_text(), str(path))
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


def test_no_address_of_an_internal_or_oauth_endpoint_is_written_outside_the_contract():
    """The command-line client is left out: an outside client with its own distribution, it cannot
    import the contract, and its own test holds every path it calls to the declarations."""
    contract, cli = ROOT / "libs" / "contract", ROOT / "cli"
    written = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in product_modules()
        if contract not in path.parents and cli not in path.parents
        for line, text in string_literals(path)
        if HAND_WRITTEN_PATH.search(text)
    ]
    assert written == []


def test_no_internal_endpoint_is_declared_twice():
    """Within a part; parts may serve an endpoint of the same shape (each its own webhook changes)."""
    assert [key for key, n in Counter((e.part, e.method, e.path) for e in ENDPOINTS).items() if n > 1] == []
    assert [name for name, n in Counter((e.part, e.name) for e in ENDPOINTS).items() if n > 1] == []
    assert {e.part for e in ENDPOINTS} <= {part.name for part in PARTS}


def declared_types(answer: object) -> bool:
    """Whether an answer is declared as the contract declares answers: a TypedDict, an owner's
    schema (`Owned`, which must name a response schema), or text passed on as written."""
    if isinstance(answer, Text):
        return True
    if get_origin(answer) is Annotated:
        return any(isinstance(item, Owned) and isinstance(owned_schema(item), Schema) for item in get_args(answer))
    return is_typeddict(answer)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda endpoint: f"{endpoint.part}:{endpoint.name}")
def test_every_internal_endpoint_declares_its_bodies(endpoint: Endpoint):
    """A POST sends a JSON body and a GET none; each answers a declared type; a query, when the
    endpoint takes one, is a schema of the contract's or the one its owning part declares."""
    assert (endpoint.body is not None) == (endpoint.method == "POST")
    assert endpoint.body is None or isinstance(endpoint.body, Schema)
    assert declared_types(endpoint.answer), endpoint.answer
    if isinstance(endpoint.query, Owned):
        assert isinstance(owned_schema(endpoint.query), Schema)
    else:
        assert endpoint.query is None or isinstance(endpoint.query, Schema)


def test_no_internal_request_schema_is_declared_again_outside_the_contract():
    """A serving part loads an internal request through its declaration: no module outside the
    contract declares a schema of the same name beside it."""
    declared = {type(schema).__name__ for e in ENDPOINTS for schema in (e.body, e.query) if isinstance(schema, Schema)}
    restated = {
        f"{path.relative_to(ROOT)}: {node.name}"
        for path in product_modules()
        if ROOT / "libs" / "contract" not in path.parents
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ClassDef) and node.name in declared
    }
    assert restated == set()


def test_a_client_builds_only_the_declared_body_and_query():
    endpoint = next(e for e in ENDPOINTS if e.name == "internal_targets_count")
    assert endpoint.body_of({"product_ids": ["p"], "status": "draft"}) == {"productIds": ["p"], "status": "draft"}
    with pytest.raises(TypeError, match=r"undeclared \['product_id'\], missing \['product_ids'\]"):
        endpoint.body_of({"product_id": ["p"]})
    targets = next(e for e in ENDPOINTS if e.name == "internal_targets")
    query = {"product_id": ["a", "b"], "limit": 10, "after_id": None}
    assert targets.query_of(query) == [("productId", "a"), ("productId", "b"), ("limit", "10")]


def registered(part: Part, environ: dict[str, str], prefix: str) -> set[tuple[str, str, str | None]]:
    app = build_app(part, {**environ, "DATABASE_URL": UNUSED_DATABASE})
    return {
        (route.method, route.resource.canonical, route.name)
        for route in app.router.routes()
        # A page's path also answers any other method, with the dashboard's 405 page ("*").
        if route.resource is not None
        and route.resource.canonical.startswith(prefix)
        and route.method not in ("HEAD", "*")
    }


def triples(endpoints: tuple[Endpoint, ...]) -> set[tuple[str, str, str | None]]:
    return {(endpoint.method, endpoint.path, endpoint.name) for endpoint in endpoints}


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_a_part_serves_exactly_its_declared_internal_endpoints(part: Part, base_environ):
    assert registered(part, base_environ, "/internal/") == triples(endpoints_of(part.name))


def test_the_gateway_serves_exactly_the_declared_oauth_endpoints(base_environ):
    served = registered(GATEWAY, base_environ, "/api/v1/oauth/") | registered(
        GATEWAY, base_environ, "/.well-known/oauth"
    )
    assert served == triples(OAUTH.all())
    pages = {(method, path) for method, path, _ in registered(GATEWAY, base_environ, OAUTH.device_page)}
    assert pages == {("GET", OAUTH.device_page), ("POST", OAUTH.device_page)}


def test_an_internal_endpoint_without_its_handler_fails_at_startup(base_environ, monkeypatch):
    from services.content import routes

    kept = tuple(handler for handler in routes.INTERNAL_HANDLERS if handler.__name__ != "internal_targets")
    monkeypatch.setattr(routes, "INTERNAL_HANDLERS", kept)
    with pytest.raises(ContractMismatch, match=r"routes without a handler: \['internal_targets'\]"):
        build_app(CONTENT, {**base_environ, "DATABASE_URL": UNUSED_DATABASE})


@pytest.mark.parametrize(
    ("endpoint", "parameters", "query", "url"),
    [
        (ENDPOINTS[0], {}, [], "http://content/internal/documents/lookup"),
        (
            next(e for e in ENDPOINTS if e.name == "internal_organization_documents"),
            {"orgId": "a/b c"},
            [("after", "x&y"), ("limit", "10")],
            "http://content/internal/organizations/a%2Fb%20c/documents?after=x%26y&limit=10",
        ),
    ],
)
def test_an_endpoint_builds_its_address_with_its_parameters_encoded(
    endpoint: Endpoint, parameters: dict[str, str], query: list[tuple[str, str]], url: str
):
    assert endpoint.url("http://content", query, **parameters) == url


def test_the_contract_package_stands_on_no_other_library_of_the_project():
    """libs/contract is the ground floor: the parts list, routes, events and internal endpoints, declared
    with the standard library and marshmallow alone (its clients live in libs/common/clients.py)."""
    project = ("libs", "gateway", "services", "aivis", "cli", "deploy", "bench", "tests")
    importing = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in imported_modules(path)
            if name.split(".")[0] in project and not name.startswith("libs.contract")
        )
        for path in (ROOT / "libs" / "contract").rglob("*.py")
    }
    assert {path: names for path, names in importing.items() if names} == {}
