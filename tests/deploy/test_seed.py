"""The demo seed's apps: an app of the demo product, its domain routing the published pages and a legacy
routing domain, seeded once."""

from __future__ import annotations

from deploy import seed
from libs.common.db import create_pool, cursor, fetch_value
from libs.contract.parts import APPS
from services.apps.queries import domains as domain_queries
from tests import conftest


async def test_seeding_twice_leaves_one_app_and_a_legacy_routing_config(database: conftest.TestDatabase):
    published = {"/pricing": "6f1c3f0e-2f7a-4b8e-9c11-0a5d3e7b9f21"}
    for _ in range(2):
        await seed._seed_apps(database.admin_dsn, published)
    organization_id = seed.ORGANIZATION["id"]
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 1) as apps_pool, cursor(apps_pool) as cur:
        apps = await fetch_value(cur, "SELECT count(*) FROM apps WHERE organization_id = %s", (organization_id,))
        domains = await fetch_value(cur, "SELECT count(*) FROM domains WHERE organization_id = %s", (organization_id,))
        routing = await domain_queries.find_legacy_routing(cur, organization_id, seed.LEGACY_DOMAIN["id"])
        routes = await fetch_value(cur, "SELECT json_agg(json_build_array(path, target_id)) FROM routes"
                                   " WHERE app_id = %s AND deleted_at IS NULL", (seed.APP["id"],))  # fmt: skip
    assert (apps, domains) == (1, 2)
    assert routes == [["/pricing", published["/pricing"]]]
    assert routing is not None
    assert routing["config"]["hostname"] == "legacy.demo.example.com"
    assert routing["config"]["paths"][0]["destination"] == {"type": "app", "appId": seed.APP["id"]}
