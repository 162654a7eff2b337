"""A domain deleted on its own, and every domain of a purged app, is announced to the content service
as a released one is; a domain deleted with its app is not (a restore brings it back)."""

from __future__ import annotations

from libs.common.db import fetch_value, transaction
from services.apps.purge import purge_expired
from tests.apps.support import FakeContent, Tenant
from tests.apps.test_app_restore import RESTORE_DAYS, backdate
from tests.factories import eventually


async def add_domain(tenant: Tenant, app: dict) -> dict:
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": f"{app['id']}.example.com"})
    assert status == 201, body
    domain: dict = body["data"]
    return domain


async def announced(content: FakeContent, tenant: Tenant, domain: dict) -> None:
    """Wait for the sweep (every second here) to tell `content` of the domain, for its organization."""

    async def told() -> bool:
        return (tenant.org.id, domain["id"]) in content.withdrawn

    await eventually(told)


async def test_a_domain_deleted_on_its_own_is_announced_once(tenant: Tenant, content: FakeContent, apps_pool):
    app = await tenant.create_app()
    domain = await add_domain(tenant, app)
    status, _ = await tenant.delete(f"/api/v1/apps/{app['id']}/domains/{domain['id']}")
    assert status == 200
    await announced(content, tenant, domain)

    async def stored() -> bool:  # once content has answered, in the sweep's own transaction
        async with transaction(apps_pool) as cur:
            sql = "SELECT withdrawal_announced_at IS NOT NULL FROM domains WHERE id = %s"
            return bool(await fetch_value(cur, sql, (domain["id"],)))

    await eventually(stored)
    assert content.withdrawn.count((tenant.org.id, domain["id"])) == 1


async def test_an_announcement_content_failed_is_made_again(tenant: Tenant, content: FakeContent):
    content.withdrawals_failing = 2
    app = await tenant.create_app()
    domain = await add_domain(tenant, app)
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}/domains/{domain['id']}"))[0] == 200
    await announced(content, tenant, domain)
    assert content.withdrawals_failing == 0


async def test_a_domain_deleted_with_its_app_is_not_announced_and_a_restore_keeps_it(
    tenant: Tenant, content: FakeContent
):
    app, other = await tenant.create_app(), await tenant.create_app(name="Other")
    kept, witness = await add_domain(tenant, app), await add_domain(tenant, other)
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    assert (await tenant.delete(f"/api/v1/apps/{other['id']}/domains/{witness['id']}"))[0] == 200
    # The witness, deleted after the app, is announced: the sweep has run since the app's delete.
    await announced(content, tenant, witness)
    assert (tenant.org.id, kept["id"]) not in content.withdrawn
    assert (await tenant.post(f"/api/v1/apps/{app['id']}/restore", None))[0] == 200
    status, body = await tenant.get(f"/api/v1/apps/{app['id']}/domains")
    assert (status, [domain["id"] for domain in body["data"]]) == (200, [kept["id"]])


async def test_the_domains_of_a_purged_app_are_announced(tenant: Tenant, content: FakeContent, apps_pool):
    app = await tenant.create_app()
    live = await add_domain(tenant, app)
    status, body = await tenant.post(f"/api/v1/apps/{app['id']}/domains", {"domain": f"alone.{app['id']}.example.com"})
    assert status == 201, body
    alone = body["data"]
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}/domains/{alone['id']}"))[0] == 200
    assert (await tenant.delete(f"/api/v1/apps/{app['id']}"))[0] == 200
    await backdate(apps_pool, app, RESTORE_DAYS + 1)
    assert (tenant.org.id, live["id"]) not in content.withdrawn
    assert await purge_expired(apps_pool, RESTORE_DAYS) >= 1
    for domain in (live, alone):
        await announced(content, tenant, domain)

    async def forgotten() -> bool:  # once the announcement's answer is in, a moment after content took it
        async with transaction(apps_pool) as cur:
            sql = "SELECT count(*) FROM purged_domains WHERE id = ANY(%s::uuid[])"
            return await fetch_value(cur, sql, ([live["id"], alone["id"]],)) == 0

    await eventually(forgotten)
