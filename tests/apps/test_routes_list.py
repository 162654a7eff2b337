"""GET an app's routes: keyset pages, oldest first, filtered by path prefix and target."""

from __future__ import annotations

from typing import Any

import pytest

from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of


async def add_routes(tenant: Tenant, content: FakeContent, app: dict, *paths: str) -> list[dict[str, Any]]:
    """One route a path, each to a new document of the tenant's product, created in this order."""
    made = []
    for path in paths:
        document = content.add(tenant.org, tenant.product)
        status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route(path, document)]})
        assert status == 200, body
        made.append(body["data"]["routes"][0])
    return made


async def every_page(tenant: Tenant, app: dict, **params: str) -> list[list[dict[str, Any]]]:
    pages = []
    cursor: str | None = None
    while True:
        status, body = await tenant.get(routes_of(app), **params, **({"cursor": cursor} if cursor else {}))
        assert status == 200, body
        assert_shape(schemas.RouteList, body["data"])
        pages.append(body["data"]["routes"])
        cursor = body["data"]["nextCursor"]
        if cursor is None:
            return pages


async def test_pages_follow_each_other_oldest_first(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    made = await add_routes(tenant, content, app, "/a", "/b", "/c", "/d", "/e")
    pages = await every_page(tenant, app, limit="2")
    assert [len(page) for page in pages] == [2, 2, 1]
    assert [entry for page in pages for entry in page] == made
    assert pages[0][0]["target"] is not None and pages[0][0]["product"] == tenant.product
    assert pages[0][0]["deletedAt"] is None


async def test_without_a_limit_a_page_holds_a_hundred(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    documents = [content.add(tenant.org, tenant.product) for _ in range(101)]
    status, body = await tenant.post(
        f"{routes_of(app)}/batch", {"routes": [route(f"/p{n}", d) for n, d in enumerate(documents[:100])]}
    )
    assert status == 200, body
    await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/last", documents[100])]})
    status, body = await tenant.get(routes_of(app))
    assert (status, len(body["data"]["routes"])) == (200, 100)
    status, body = await tenant.get(routes_of(app), cursor=body["data"]["nextCursor"])
    assert [entry["path"] for entry in body["data"]["routes"]] == ["/last"]
    assert body["data"]["nextCursor"] is None


async def test_an_app_without_routes_has_one_empty_page(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.get(routes_of(app))
    assert (status, body["data"]) == (200, {"routes": [], "nextCursor": None})


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("/docs/", ["/docs/a", "/docs/b/c"]),
        ("/docs", ["/docs/a", "/docs/b/c", "/docs-old"]),
        ("docs/b", ["/docs/b/c"]),
        ("/caf%C3%A9", ["/café/x"]),
        ("/", ["/docs/a", "/docs/b/c", "/docs-old", "/café/x"]),
    ],
)
async def test_a_path_prefix_keeps_the_routes_under_it(tenant: Tenant, content: FakeContent, prefix, expected):
    app = await tenant.create_app()
    await add_routes(tenant, content, app, "/docs/a", "/docs/b/c", "/docs-old", "/café/x")
    pages = await every_page(tenant, app, pathPrefix=prefix, limit="1")
    assert [entry["path"] for page in pages for entry in page] == expected


async def test_a_target_keeps_its_routes_only(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    first, _ = await add_routes(tenant, content, app, "/one", "/two")
    again = route("/one-again", first["target"])
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [again]})
    assert status == 200, body
    status, body = await tenant.get(routes_of(app), targetId=first["targetId"])
    assert status == 200
    assert [entry["path"] for entry in body["data"]["routes"]] == ["/one", "/one-again"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "501"}, "limit"),
        ({"cursor": "nope"}, "cursor"),
        ({"cursor": "WyIvYSIsIjEyMyJd"}, "cursor"),
        ({"targetId": "x"}, "targetId"),
        ({"pathPrefix": "/a b"}, "pathPrefix"),
    ],
)
async def test_a_bad_query_is_refused_naming_the_parameter(tenant: Tenant, params, field):
    app = await tenant.create_app()
    status, body = await tenant.get(routes_of(app), **params)
    assert (status, body["code"]) == (422, "VALIDATION_FAILED")
    assert field in body["details"]


async def test_a_cursor_of_route_candidates_is_not_one_of_this_list(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    content.add(tenant.org, tenant.product)
    content.add(tenant.org, tenant.product)
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/route-candidates", limit="1")
    assert status == 200 and body["data"]["nextCursor"]
    status, body = await tenant.get(routes_of(app), cursor=body["data"]["nextCursor"])
    assert (status, body["details"]) == (
        422,
        {"cursor": "Not a cursor of this list: send nextCursor as a page gave it."},
    )


async def test_another_organizations_app_is_not_found(tenant: Tenant, other_tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    await add_routes(tenant, content, app, "/mine")
    status, body = await other_tenant.get(routes_of(app))
    assert (status, body["code"]) == (404, "NOT_FOUND")
