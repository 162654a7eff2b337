"""The demo seed's apps: an app of the demo product, its domain and a legacy routing domain, seeded once."""

from __future__ import annotations

from deploy import seed
from libs.common.db import create_pool, cursor, fetch_value
from libs.contract.parts import APPS
from services.apps.queries import domains as domain_queries
from tests import conftest


async def test_seeding_twice_leaves_one_app_and_a_legacy_routing_config(database: conftest.TestDatabase):
    for _ in range(2):
        await seed._seed_apps(database.admin_dsn)
    organization_id = seed.ORGANIZATION["id"]
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 1) as apps_pool, cursor(apps_pool) as cur:
        apps = await fetch_value(cur, "SELECT count(*) FROM apps WHERE organization_id = %s", (organization_id,))
        domains = await fetch_value(cur, "SELECT count(*) FROM domains WHERE organization_id = %s", (organization_id,))
        routing = await domain_queries.find_legacy_routing(cur, organization_id, seed.LEGACY_DOMAIN["id"])
    assert (apps, domains) == (1, 2)
    assert routing is not None
    assert routing["config"]["hostname"] == "legacy.demo.example.com"
    assert routing["config"]["paths"][0]["destination"] == {"type": "app", "appId": seed.APP["id"]}
