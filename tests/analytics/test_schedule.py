"""Cadences: each active daily or weekly prompt runs once a period, however many replicas look."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from aiohttp.test_utils import TestServer

from libs.contract.parts import ANALYTICS
from services.analytics.scheduler import period_of
from tests.analytics.conftest import Vendors, branded
from tests.analytics.fake_vendors import vendor_environ
from tests.analytics.test_prompt_runs import tracked
from tests.conftest import Stack, build_app
from tests.factories import IdentityFactory, eventually, unique


def test_a_day_and_an_iso_week_are_the_periods():
    assert period_of("daily", datetime(2026, 11, 28, 23, 59, tzinfo=UTC)) == "2026-11-28"
    assert period_of("weekly", datetime(2026, 11, 29, tzinfo=UTC)) == "2026-W48"  # a Sunday: the week of Monday 23rd
    assert period_of("weekly", datetime(2026, 11, 30, tzinfo=UTC)) == "2026-W49"
    assert period_of("weekly", datetime(2027, 1, 1, tzinfo=UTC)) == "2026-W53"


async def test_each_due_prompt_runs_once_a_period_across_replicas(
    stack: Stack, vendors: Vendors, identity: IdentityFactory
):
    tenant = await branded(vendors.gateway, identity)
    daily = await tracked(tenant, unique("Daily"), engines=["perplexity-sonar"])
    weekly = await tracked(tenant, unique("Weekly"), engines=["perplexity-sonar"], cadence="weekly")
    await tracked(tenant, unique("Manual"), engines=["perplexity-sonar"], cadence="manual")
    await tracked(tenant, unique("Paused"), engines=["perplexity-sonar"], status="paused")
    base = vendors.base_url
    replicas = [
        TestServer(
            build_app(ANALYTICS, stack.part_environ(ANALYTICS, **vendor_environ(base), SCHEDULE_INTERVAL_SECONDS="1"))
        )
        for _ in range(2)
    ]
    for replica in replicas:
        await replica.start_server()
    try:

        async def scheduled() -> list[dict]:
            _, answer = await tenant.call("GET", "/api/v1/prompt-runs", params={"productId": tenant.product["id"]})
            return [run for run in answer["data"]["items"] if run["trigger"] == "schedule"]

        async def both() -> bool:
            return len(await scheduled()) >= 2

        await eventually(both, within=20)
        await asyncio.sleep(2.5)  # a few more rounds of both replicas
        runs = await scheduled()
        assert sorted(run["promptIds"][0] for run in runs) == sorted([daily["id"], weekly["id"]])
    finally:
        for replica in replicas:
            await replica.close()
