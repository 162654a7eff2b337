"""Routes are announced by a statement-level trigger (an import writes thousands in one statement):
the one function it calls builds exactly the fields the route's shape declares."""

from __future__ import annotations

from typing import Any

from libs.common.db import cursor, fetch_value
from services.apps.shapes import ROUTE


async def test_the_route_triggers_data_has_the_keys_of_the_route_shape(apps_pool: Any):
    async with cursor(apps_pool) as cur:
        data = await fetch_value(cur, "SELECT route_webhook_data(NULL::routes)")
    assert sorted(data) == sorted(ROUTE.keys)
