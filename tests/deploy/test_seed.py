"""The demo seed's apps: an app of the demo product, its domain routing the published pages and a legacy
routing domain, seeded once; and the AI traffic of that app."""

from __future__ import annotations

from datetime import UTC, datetime

from deploy import seed, seed_answers
from libs.common.db import create_pool, cursor, fetch_value
from libs.contract.parts import ANALYTICS, APPS, TRAFFIC
from services.apps.queries import domains as domain_queries
from tests import conftest


async def test_seeding_twice_leaves_one_app_and_a_legacy_routing_config(database: conftest.TestDatabase):
    await seed._seed_content(database.admin_dsn)
    for _ in range(2):
        await seed._seed_apps(database.admin_dsn)
    published = await seed._published_pages(database.admin_dsn)
    organization_id = seed.ORGANIZATION["id"]
    async with create_pool(database.dsn(APPS), APPS.schema, 1, 1) as apps_pool, cursor(apps_pool) as cur:
        apps = await fetch_value(cur, "SELECT count(*) FROM apps WHERE organization_id = %s", (organization_id,))
        domains = await fetch_value(cur, "SELECT count(*) FROM domains WHERE organization_id = %s", (organization_id,))
        routing = await domain_queries.find_legacy_routing(cur, organization_id, seed.LEGACY_DOMAIN["id"])
        routes = await fetch_value(
            cur,
            "SELECT json_agg(json_build_array(path, target_id)) FROM routes WHERE app_id = %s AND deleted_at IS NULL",
            (seed.APP["id"],),
        )
    assert (apps, domains) == (1, 2)
    assert published and sorted(map(tuple, routes)) == sorted(published)
    assert routing is not None
    assert routing["config"]["hostname"] == "legacy.demo.example.com"
    assert routing["config"]["paths"][0]["destination"] == {"type": "app", "appId": seed.APP["id"]}


async def test_the_demo_app_has_a_week_of_ai_traffic_seeded_once(database: conftest.TestDatabase):
    for _ in range(2):
        await seed._seed_traffic(database.admin_dsn)
    async with create_pool(database.dsn(TRAFFIC), TRAFFIC.schema, 1, 1) as pool, cursor(pool) as cur:
        stored = await fetch_value(
            cur, "SELECT count(*) FROM events WHERE organization_id = %s", (seed.ORGANIZATION["id"],)
        )
        categories = await fetch_value(
            cur,
            "SELECT count(DISTINCT category) FROM agent_hourly WHERE organization_id = %s",
            (seed.ORGANIZATION["id"],),
        )
    assert stored == len(seed.demo_traffic(datetime.now(UTC)))
    assert categories == 4  # training, search, user_fetch, dataset


async def test_seeding_twice_leaves_the_demo_answers_analysed_once(database: conftest.TestDatabase, tmp_path):
    for _ in range(2):
        await seed._seed_identity(database.admin_dsn, tmp_path / "demo-api-key")
        await seed_answers.seed_answers(database.admin_dsn, seed.ORGANIZATION["id"], seed.PRODUCT["id"])
    async with create_pool(database.dsn(ANALYTICS), ANALYTICS.schema, 1, 1) as pool, cursor(pool) as cur:
        counts = await fetch_value(
            cur,
            "SELECT json_build_array(count(*), count(analysis_id)) FROM answers WHERE organization_id = %s",
            (seed.ORGANIZATION["id"],),
        )
        brands = await fetch_value(
            cur,
            "SELECT array_agg(DISTINCT name ORDER BY name) FROM brand_mentions WHERE organization_id = %s",
            (seed.ORGANIZATION["id"],),
        )
    assert counts == [42, 42]
    assert brands == ["Demo Product", "Globex Analytics", "Initech Insights"]
