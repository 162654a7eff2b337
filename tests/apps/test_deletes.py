"""DELETE an app's route, domain or resource: answered with `deletedAt`, then gone from every list and lookup."""

from __future__ import annotations

import aiohttp
import pytest

from libs.common.internal_token import HEADER, Organization, mint, service_caller
from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of
from tests.conftest import Stack
from tests.factories import IdentityFactory


async def resolve(stack: Stack, tenant: Tenant, ids: list[str]) -> list[dict[str, str]]:
    """What the content service hears of these domain ids (POST /internal/domains/resolve)."""
    org = Organization(tenant.org.id, tenant.org.slug, tenant.org.name)
    token = mint(stack.environ["INTERNAL_TOKEN_SECRET"], service_caller("content", org))
    url = stack.servers["apps"].make_url("/internal/domains/resolve")
    async with aiohttp.ClientSession() as session, session.post(url, json={"ids": ids}, headers={HEADER: token}) as r:
        assert r.status == 200
        domains: list[dict[str, str]] = (await r.json())["domains"]
        return domains


async def add_domain(tenant: Tenant, app: dict, hostname: str) -> dict:
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": hostname})
    assert status == 201, body
    domain: dict = body["data"]
    return domain


async def test_a_deleted_route_is_gone_and_its_path_free(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    document = content.add(tenant.org, tenant.product, filePath="/guide")
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/guide", document)]})
    made = body["data"]["routes"][0]
    status, body = await tenant.delete(f"{routes_of(app)}/{made['id']}")
    assert status == 200
    assert_shape(schemas.AppRoute, body["data"])
    assert body["data"]["deletedAt"] is not None
    assert {**body["data"], "deletedAt": None} == made
    status, body = await tenant.get(routes_of(app))
    assert body["data"]["routes"] == []
    status, body = await tenant.patch(f"{routes_of(app)}/{made['id']}", {"path": "/other"})
    assert (status, body["code"]) == (404, "NOT_FOUND")
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/route-candidates")
    assert [c["pathStatus"] for c in body["data"]["candidates"]] == ["available"]
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/guide", document)]})
    assert (status, body["data"]["createdCount"]) == (200, 1)
    assert body["data"]["routes"][0]["id"] != made["id"]


async def test_a_deleted_route_is_not_found_twice(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app()
    document = content.add(tenant.org, tenant.product)
    _, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/x", document)]})
    path = f"{routes_of(app)}/{body['data']['routes'][0]['id']}"
    assert (await tenant.delete(path))[0] == 200
    status, body = await tenant.delete(path)
    assert (status, body["code"], body["message"]) == (404, "NOT_FOUND", "route not found")


async def test_a_deleted_domain_is_gone_and_its_hostname_free(stack: Stack, tenant: Tenant, other_tenant: Tenant):
    app = await tenant.create_app()
    kept = await add_domain(tenant, app, "kept.whole.example.com")
    domain = await add_domain(tenant, app, "gone.whole.example.com")
    status, body = await tenant.delete(f"/api/v1/apps/{app['id']}/domains/{domain['id']}")
    assert status == 200
    assert_shape(schemas.AppDomain, body["data"])
    assert {**body["data"], "deletedAt": None} == domain and body["data"]["deletedAt"] is not None
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/domains")
    assert body["data"] == [kept]
    assert await resolve(stack, tenant, [kept["id"], domain["id"]]) == [{"id": kept["id"], "domain": kept["domain"]}]
    other_app = await other_tenant.create_app()
    assert (await add_domain(other_tenant, other_app, "gone.whole.example.com"))["domain"] == "gone.whole.example.com"


async def test_a_deleted_resource_is_gone_and_the_next_product_is_the_configs(
    tenant: Tenant, identity: IdentityFactory, apps_products, content: FakeContent
):
    second = await identity.product(tenant.org, "Second")
    await apps_products.until_known(second)
    app = await tenant.create_app_of(tenant.product, second)
    content.add(tenant.org, tenant.product)
    _, body = await tenant.get(f"/api/v1/apps/{app['id']}/resources")
    first, other = body["data"]
    status, body = await tenant.delete(f"/api/v1/apps/{app['id']}/resources/{first['id']}")
    assert status == 200
    assert_shape(schemas.AppResource, body["data"])
    assert body["data"]["deletedAt"] is not None and body["data"]["resourceId"] == tenant.product["id"]
    _, body = await tenant.get(f"/api/v1/apps/{app['id']}/resources")
    assert body["data"] == [other]
    _, body = await tenant.get(f"/api/v1/apps/{app['id']}")
    assert [r["id"] for r in body["data"]["resources"]] == [other["id"]]
    assert body["data"]["appConfig"]["productId"] == second["id"]
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/route-candidates", productId=tenant.product["id"])
    assert (status, body["message"]) == (404, "this product is not a resource of the app")
    status, _ = await tenant.delete(f"/api/v1/apps/{app['id']}/resources/{other['id']}")
    _, body = await tenant.get(f"/api/v1/apps/{app['id']}")
    assert (body["data"]["resources"], body["data"]["appConfig"]["productId"]) == ([], None)
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/resources", {"resourceId": tenant.product["id"]})
    assert status == 201  # a removed product may be added again


@pytest.mark.parametrize("what", ["routes", "domains", "resources"])
async def test_unknown_ids_are_not_found(tenant: Tenant, what: str):
    app = await tenant.create_app()
    for bad in ("00000000-0000-4000-8000-000000000000", "not-an-id"):
        status, body = await tenant.delete(f"/api/v1/apps/{app['id']}/{what}/{bad}")
        assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_another_organization_deletes_nothing(tenant: Tenant, other_tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    domain = await add_domain(tenant, app, "mine.whole.example.com")
    _, body = await tenant.post(
        f"{routes_of(app)}/batch", {"routes": [route("/x", content.add(tenant.org, tenant.product))]}
    )
    made = body["data"]["routes"][0]
    _, body = await tenant.get(f"/api/v1/apps/{app['id']}/resources")
    resource = body["data"][0]
    for path in (
        f"{routes_of(app)}/{made['id']}",
        f"/api/v1/apps/{app['id']}/domains/{domain['id']}",
        f"/api/v1/apps/{app['id']}/resources/{resource['id']}",
        f"/api/v1/apps/{app['id']}",
    ):
        status, body = await other_tenant.delete(path)
        assert (status, body["code"]) == (404, "NOT_FOUND"), path
    assert (await tenant.get(routes_of(app)))[1]["data"]["routes"] == [made]
    assert (await tenant.get(f"/api/v1/apps/{app['id']}/domains"))[1]["data"] == [domain]
    assert (await tenant.get(f"/api/v1/apps/{app['id']}/resources"))[1]["data"] == [resource]


async def test_deleting_takes_the_write_scope(tenant: Tenant, identity: IdentityFactory):
    app = await tenant.create_app()
    reader = await identity.api_key(tenant.org, frozenset({"content:read"}))
    response = await tenant.client.delete(f"/api/v1/apps/{app['id']}", headers={"x-api-key": reader})
    body = await response.json()
    assert (response.status, body["code"], body["details"]) == (403, "FORBIDDEN", {"requiredScope": "content:write"})
    status, _ = await tenant.get(f"/api/v1/apps/{app['id']}")
    assert status == 200
