"""DELETE an app, POST .../restore it exactly within the window, and the purge that frees its hostnames after."""

from __future__ import annotations

import asyncio
from typing import Any

from libs.common.db import fetch_value, transaction
from services.apps.purge import purge_expired
from services.apps.schemas import responses as schemas
from tests.apps.support import FakeContent, Tenant, assert_shape, route, routes_of
from tests.apps.test_legacy_routing import create_legacy_domain
from tests.conftest import Stack
from tests.factories import IdentityFactory

RESTORE_DAYS = 30  # the default of APPS_RESTORE_DAYS, which the test stack keeps


async def everything(tenant: Tenant, app: dict) -> dict[str, Any]:
    """The app as every read shows it."""
    seen = {}
    for name, path in (("app", ""), ("resources", "/resources"), ("domains", "/domains"), ("routes", "/routes")):
        status, body = await tenant.get(f"/api/v1/apps/{app['id']}{path}")
        assert status == 200, body
        seen[name] = body["data"]
    return seen


async def full_app(tenant: Tenant, identity: IdentityFactory, apps_products, content: FakeContent) -> dict:
    """An app with a config, two products, two domains and three routes, one of each deleted on its own."""
    second = await identity.product(tenant.org, "Second")
    await apps_products.until_known(second)
    app = await tenant.create_app_of(tenant.product, second)
    assert (await tenant.patch(f"/api/v1/apps/{app['id']}/app-config", {"config": {"theme": "dark"}}))[0] == 200
    domains = []
    for hostname in (f"a.{app['slug']}-{app['id'][:8]}.example.com", f"b.{app['slug']}-{app['id'][:8]}.example.com"):
        status, body = await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": hostname})
        assert status == 201, body
        domains.append(body["data"])
    items = [route(f"/r{n}", content.add(tenant.org, tenant.product)) for n in range(3)]
    status, body = await tenant.post(f"{routes_of(app)}/batch", {"routes": items})
    assert status == 200, body
    assert (await tenant.delete(f"{routes_of(app)}/{body['data']['routes'][0]['id']}"))[0] == 200
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}/domains/{domains[0]['id']}"))[0] == 200
    return {**app, "hostnames": [domain["domain"] for domain in domains]}


async def backdate(apps_pool, app: dict, days: int) -> None:
    """As if the app had been deleted `days` ago."""
    async with transaction(apps_pool) as cur:
        await cur.execute(
            "UPDATE apps SET deleted_at = deleted_at - make_interval(days => %s) WHERE id = %s", (days, app["id"])
        )


async def test_a_restore_brings_back_exactly_what_the_delete_took(
    tenant: Tenant, identity: IdentityFactory, apps_products, content: FakeContent
):
    app = await full_app(tenant, identity, apps_products, content)
    before = await everything(tenant, app)
    status, body = await tenant.delete(f"/api/v1/apps/{app['id']}")
    assert status == 200
    assert_shape(schemas.App, body["data"])
    assert body["data"]["deletedAt"] is not None
    assert {**body["data"], "deletedAt": None} == {k: v for k, v in before["app"].items() if k in body["data"]}
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/restore", None)
    assert status == 200
    assert_shape(schemas.AppDetail, body["data"])
    assert body["data"] == before["app"]
    assert await everything(tenant, app) == before
    assert len(before["routes"]["routes"]) == 2 and len(before["domains"]) == 1  # what was deleted alone stays so


async def test_a_deleted_app_is_gone_from_every_read(tenant: Tenant, content: FakeContent):
    app = await tenant.create_app_of()
    await tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/x", content.add(tenant.org, tenant.product))]})
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    assert app["id"] not in [a["id"] for a in (await tenant.get("/api/v1/apps"))[1]["data"]]
    for path in ("", "/resources", "/domains", "/routes", "/route-candidates"):
        status, body = await tenant.get(f"/api/v1/apps/{app['id']}{path}")
        assert (status, body["code"]) == (404, "NOT_FOUND"), path
    status, body = await tenant.delete(f"/api/v1/apps/{app['id']}")
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_a_deleted_apps_hostnames_stay_its_own(tenant: Tenant, other_tenant: Tenant):
    app = await tenant.create_app()
    hostname = f"held.{app['id'][:8]}.example.com"
    assert (await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": hostname}))[0] == 201
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    for claimant in (tenant, other_tenant):
        other_app = await claimant.create_app(name="Another")
        status, body = await claimant.post(f"/api/v1/apps/{other_app['id']}/domains", {"domain": hostname})
        assert (status, body["code"]) == (409, "CONFLICT")


async def test_the_purge_frees_the_hostnames_and_ends_the_restore(tenant: Tenant, other_tenant: Tenant, apps_pool):
    app, recent = await tenant.create_app(), await tenant.create_app(name="Recent")
    hostname = f"purged.{app['id'][:8]}.example.com"
    assert (await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": hostname}))[0] == 201
    for deleted in (app, recent):
        assert (await tenant.delete(f"/api/v1/apps/{deleted['id']}"))[0] == 200
    await backdate(apps_pool, app, RESTORE_DAYS + 1)
    assert await purge_expired(apps_pool, RESTORE_DAYS) >= 1
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/restore", None)
    assert (status, body["code"]) == (404, "NOT_FOUND")
    other_app = await other_tenant.create_app()
    status, body = await other_tenant.post(f"/api/v1/apps/{other_app['id']}/domains", {"domain": hostname})
    assert (status, body["data"]["domain"]) == (201, hostname)
    status, body = await tenant.post(f"/api/v1/apps/{recent['id']}/restore", None)
    assert status == 200  # deleted within the window: not purged


async def test_past_the_window_an_app_cannot_be_restored(tenant: Tenant, apps_pool):
    app = await tenant.create_app()
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    await backdate(apps_pool, app, RESTORE_DAYS)
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/restore", None)
    assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_a_live_app_is_not_restored(tenant: Tenant):
    app = await tenant.create_app()
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/restore", None)
    assert (status, body["code"], body["message"]) == (409, "CONFLICT", "the app is not deleted")


async def test_a_taken_slug_stops_the_restore(tenant: Tenant):
    app = await tenant.create_app(slug="taken-on-restore")
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    await tenant.create_app(slug="taken-on-restore")
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/restore", None)
    assert (status, body["code"]) == (409, "CONFLICT")
    assert (await tenant.get(f"/api/v1/apps/{app['id']}"))[0] == 404


async def test_another_organization_cannot_restore(tenant: Tenant, other_tenant: Tenant):
    app = await tenant.create_app()
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    for app_id in (app["id"], "00000000-0000-4000-8000-000000000000", "nope"):
        status, body = await other_tenant.post(f"/api/v1/apps/{app_id}/restore", None)
        assert (status, body["code"]) == (404, "NOT_FOUND")
    assert (await tenant.get(f"/api/v1/apps/{app['id']}"))[0] == 404


async def test_legacy_routing_leaves_out_a_deleted_app_until_it_is_restored(stack: Stack, capsys, tenant: Tenant):
    kept, deleted = await tenant.create_app(name="Kept"), await tenant.create_app(name="Deleted")
    domain = await create_legacy_domain(
        stack, capsys, tenant, "--path", f"/docs/={kept['id']}", "--path", f"/blog/={deleted['id']}"
    )

    async def destinations() -> list[str]:
        status, body = await tenant.get(f"/api/v1/domain/{domain['id']}/routing")
        assert status == 200, body
        return [path["destination"]["appId"] for path in body["data"]["config"]["paths"]]

    before = await destinations()
    assert before == [kept["id"], deleted["id"]]
    assert (await tenant.delete(f"/api/v1/apps/{deleted['id']}"))[0] == 200
    assert await destinations() == [kept["id"]]
    assert (await tenant.post(f"/api/v1/apps/{deleted['id']}/restore", None))[0] == 200
    assert await destinations() == before


async def test_what_is_added_while_the_app_is_deleted_is_taken_with_it_or_refused(
    tenant: Tenant, content: FakeContent, apps_pool
):
    """Concurrent adds and the app's delete: each add is 404, or its row is deleted with the app."""
    for attempt in range(5):
        app = await tenant.create_app_of()
        document = content.add(tenant.org, tenant.product)
        answers = await asyncio.gather(
            tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": f"race{attempt}.{app['id'][:8]}.example.com"}),
            tenant.post(f"{routes_of(app)}/batch", {"routes": [route("/race", document)]}),
            tenant.delete(f"/api/v1/apps/{app['id']}"),
        )
        assert [status for status, _ in answers][2] == 200
        assert all(status in (200, 201, 404) for status, _ in answers[:2]), answers
        async with transaction(apps_pool) as cur:
            live = await fetch_value(
                cur,
                "SELECT (SELECT count(*) FROM domains WHERE app_id = %(id)s AND deleted_at IS NULL)"
                " + (SELECT count(*) FROM routes WHERE app_id = %(id)s AND deleted_at IS NULL)",
                {"id": app["id"]},
            )
        assert live == 0
