"""The dashboard's pages are added behind the API with aiohttp's public API (gateway/dashboard/site.py):
its middleware acts on its pages alone, and neither side's routes shadow the other's."""

from __future__ import annotations

import re

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from aiohttp.web_urldispatcher import UrlMappingMatchInfo

from gateway.dashboard.site import ROUTE_PREFIX, add_pages, dashboard_middleware
from gateway.edge.route_table import ROUTES
from libs.contract.parts import GATEWAY
from tests.conftest import Client, build_app

PARAMETER = re.compile(r"{(\w+)(?::[^{}]*)?}")


def pages() -> list[tuple[str, str, str | None]]:
    router = web.UrlDispatcher()
    add_pages(router)
    return [
        (route.method, route.resource.canonical, route.name)
        for route in router.routes()
        if route.method != "HEAD" and route.resource is not None and not isinstance(route.resource, web.StaticResource)
    ]


PAGES = pages()


def filled(path: str) -> str:
    """A path of the pattern, every parameter given a value (one that could be an organization's slug)."""
    return PARAMETER.sub("demo", path)


@pytest.fixture(scope="module")
def gateway_app(base_environ: dict[str, str]) -> web.Application:
    return build_app(GATEWAY, {**base_environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"})


async def resolve(app: web.Application, method: str, path: str) -> UrlMappingMatchInfo:
    return await app.router.resolve(make_mocked_request(method, path, app=app))


def passes_dashboard_middleware(gateway_app: web.Application, match_info: UrlMappingMatchInfo) -> bool:
    """Whether the dashboard's middleware acts on the request: it is among the gateway's, and the
    request is routed to a page."""
    name = match_info.route.name
    return dashboard_middleware in gateway_app.middlewares and name is not None and name.startswith(ROUTE_PREFIX)


def test_the_pages_are_the_dashboards_expected_ones():
    names = {name for _, _, name in PAGES}
    assert {"dashboard.login_page", "dashboard.api_keys", "dashboard.device", "dashboard.reference"} <= names


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: f"{route.method} {route.path}")
async def test_every_api_route_is_the_apis_and_passes_no_dashboard_middleware(gateway_app: web.Application, route):
    match_info = await resolve(gateway_app, route.method, filled(route.path))
    assert match_info.http_exception is None
    assert match_info.route.name == route.name
    assert not passes_dashboard_middleware(gateway_app, match_info)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: f"{page[0]} {page[1]}")
async def test_every_page_is_the_dashboards_and_passes_its_middleware(gateway_app: web.Application, page):
    method, path, name = page
    match_info = await resolve(gateway_app, method, filled(path))
    assert match_info.route.name == name
    assert passes_dashboard_middleware(gateway_app, match_info)


async def test_a_path_nobody_serves_is_the_apis_json_404(gateway: Client):
    for path in ("/api/v1/no-such-thing", "/api/v2/apps"):
        response = await gateway.get(path)
        assert response.status == 404
        body = await response.json()
        assert body["ok"] is False and body["code"] == "NOT_FOUND"
        assert "Content-Security-Policy" not in response.headers


async def test_an_address_under_an_organization_that_is_no_page_is_the_dashboards(gateway_app: web.Application):
    for path in ("/demo/settings/no-such-page", "/demo/apps/", "/demo/settings", "/demo/members"):
        match_info = await resolve(gateway_app, "GET", path)
        assert match_info.route.name.startswith(("dashboard.unknown", "dashboard.section_")), path
        assert passes_dashboard_middleware(gateway_app, match_info)


async def test_a_page_is_html_with_the_dashboards_headers_and_an_api_answer_is_not(gateway: Client):
    page = await gateway.get("/login")
    assert page.status == 200 and page.content_type == "text/html"
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    api = await gateway.get("/api/v1/agent-simulation/runs")
    assert api.status == 401 and api.content_type == "application/json"
    assert "Content-Security-Policy" not in api.headers and "X-Frame-Options" not in api.headers


async def test_a_method_a_page_lacks_is_the_dashboards_own_405_page(gateway: Client):
    response = await gateway.put("/login")
    assert response.status == 405
    assert response.content_type == "text/html"
    assert "Not allowed" in await response.text()
