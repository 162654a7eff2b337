"""ETag, If-Match and If-None-Match on one app, its config and one route: no edit is overwritten blindly."""

from __future__ import annotations

import asyncio
from typing import Any

from multidict import CIMultiDictProxy

from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of

Answer = tuple[int, Any, CIMultiDictProxy[str]]


async def send(tenant: Tenant, method: str, path: str, json: Any = None, **headers: str) -> Answer:
    """Status, body (None for a 304) and headers of one call with the conditional `headers` given."""
    headers = {name.replace("_", "-"): value for name, value in headers.items()}
    response = await tenant.client.request(method, path, json=json, headers={"x-api-key": tenant.key, **headers})
    body = await response.json() if await response.read() else None
    return response.status, body, response.headers


async def make_route(tenant: Tenant, content: FakeContent, app: dict[str, Any], path: str) -> dict[str, Any]:
    document = content.add(tenant.org, tenant.product)
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route(path, document)]})
    assert status == 200, body
    made: dict[str, Any] = body["data"]["routes"][0]
    return made


async def test_an_app_carries_one_etag_for_itself_its_config_and_resources(tenant: Tenant):
    _, created, created_headers = await send(tenant, "POST", "/api/v1/apps", {"name": "Versioned"})
    path = f"/api/v1/apps/{created['data']['id']}"
    status, body, headers = await send(tenant, "GET", path)
    assert status == 200 and headers["ETag"] == created_headers["ETag"]
    _, config, config_headers = await send(tenant, "PATCH", f"{path}/app-config", {"config": {"theme": "dark"}})
    assert config_headers["ETag"] != headers["ETag"]
    assert (await send(tenant, "GET", path))[2]["ETag"] == config_headers["ETag"]
    await tenant.post(f"{path}/resources", {"resourceId": tenant.product["id"]})
    with_resource = (await send(tenant, "GET", path))[2]["ETag"]
    assert with_resource != config_headers["ETag"]
    _, renamed, renamed_headers = await send(tenant, "PATCH", path, {"name": "Renamed"})
    assert_shape(schemas.App, renamed["data"])
    assert renamed_headers["ETag"] not in (with_resource, config_headers["ETag"])
    assert (await send(tenant, "GET", path))[2]["ETag"] == renamed_headers["ETag"]


async def test_if_none_match_on_an_app_is_a_304_until_it_changes(tenant: Tenant):
    app = await tenant.create_app()
    path = f"/api/v1/apps/{app['id']}"
    current = (await send(tenant, "GET", path))[2]["ETag"]
    status, body, headers = await send(tenant, "GET", path, If_None_Match=current)
    assert (status, body, headers["ETag"]) == (304, None, current)
    await send(tenant, "PATCH", f"{path}/app-config", {"config": {"a": 1}})
    status, body, _ = await send(tenant, "GET", path, If_None_Match=current)
    assert status == 200 and body["data"]["appConfig"]["config"] == {"a": 1}


async def test_a_stale_if_match_on_an_app_or_its_config_is_a_412_and_writes_nothing(tenant: Tenant):
    app = await tenant.create_app(name="Before")
    path = f"/api/v1/apps/{app['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    status, _, headers = await send(tenant, "PATCH", f"{path}/app-config", {"config": {"by": "first"}}, If_Match=seen)
    assert status == 200
    status, body, _ = await send(tenant, "PATCH", path, {"name": "Second"}, If_Match=seen)
    assert (status, body["code"], body["details"]) == (412, "PRECONDITION_FAILED", {"etag": headers["ETag"]})
    status, body, _ = await send(tenant, "PATCH", f"{path}/app-config", {"config": {"by": "second"}}, If_Match=seen)
    assert status == 412
    stored = (await tenant.get(path))[1]["data"]
    assert (stored["name"], stored["appConfig"]["config"]) == ("Before", {"by": "first"})
    status, body, _ = await send(tenant, "PATCH", path, {"name": "Second"}, If_Match=headers["ETag"])
    assert status == 200 and body["data"]["name"] == "Second"


async def test_a_route_carries_an_etag_and_if_none_match_is_a_304(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    made = await make_route(tenant, content, app, "/docs/a")
    path = f"{routes_of(app)}/{made['id']}"
    status, body, headers = await send(tenant, "GET", path)
    assert status == 200
    assert_shape(schemas.AppRoute, body["data"])
    assert body["data"]["id"] == made["id"] and body["data"]["target"] == made["target"]
    status, body, _ = await send(tenant, "GET", path, If_None_Match=headers["ETag"])
    assert (status, body) == (304, None)
    _, patched, patched_headers = await send(tenant, "PATCH", path, {"path": "/docs/b"})
    assert patched_headers["ETag"] != headers["ETag"]
    assert (await send(tenant, "GET", path, If_None_Match=headers["ETag"]))[0] == 200


async def test_of_concurrent_route_edits_from_one_version_exactly_one_wins(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    made = await make_route(tenant, content, app, "/docs/raced")
    path = f"{routes_of(app)}/{made['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    answers = await asyncio.gather(
        *(send(tenant, "PATCH", path, {"path": f"/docs/editor-{n}"}, If_Match=seen) for n in range(5))
    )
    assert sorted(status for status, _, _ in answers) == [200, 412, 412, 412, 412]
    winner = next(body for status, body, _ in answers if status == 200)
    current = next(headers["ETag"] for status, _, headers in answers if status == 200)
    for status, body, _ in answers:
        if status == 412:
            assert body["code"] == "PRECONDITION_FAILED" and body["details"] == {"etag": current}
    stored = await send(tenant, "GET", path)
    assert stored[1]["data"]["path"] == winner["data"]["path"]
    assert stored[2]["ETag"] == current


async def test_a_new_domain_carries_its_etag(tenant: Tenant):
    app = await tenant.create_app()
    status, body, headers = await send(
        tenant, "POST", f"/api/v1/apps/{app['id']}/domains", {"domain": f"v{app['id'][:8]}.example.com"}
    )
    assert status == 201 and headers["ETag"].startswith('"')


async def test_another_organizations_route_is_404(tenant: Tenant, other_tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    made = await make_route(tenant, content, app, "/docs/mine")
    status, body, _ = await send(other_tenant, "GET", f"{routes_of(app)}/{made['id']}")
    assert (status, body["code"]) == (404, "NOT_FOUND")
    status, body, _ = await send(tenant, "GET", f"{routes_of(app)}/00000000-0000-0000-0000-000000000000")
    assert (status, body["code"]) == (404, "NOT_FOUND")
