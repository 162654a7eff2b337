"""Idempotency-Key through the whole stack: a retried create makes one app, never two."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.apps.support import Tenant


async def post_app(tenant: Tenant, name: str, key: str) -> tuple[int, Any, Any]:
    response = await tenant.client.post(
        "/api/v1/apps", json={"name": name}, headers={"x-api-key": tenant.key, "Idempotency-Key": key}
    )
    return response.status, await response.json(), response.headers


async def apps_named(tenant: Tenant, name: str) -> list[dict[str, Any]]:
    status, body = await tenant.get("/api/v1/apps")
    assert status == 200
    return [app for app in body["data"] if app["name"] == name]


async def test_a_retried_create_answers_the_first_app_and_stores_one(tenant: Tenant):
    first = await post_app(tenant, "Retried", "create-retried")
    again = await post_app(tenant, "Retried", "create-retried")
    assert first[0] == again[0] == 201
    assert again[1] == first[1] and again[2]["Idempotent-Replayed"] == "true"
    assert again[2]["ETag"] == first[2]["ETag"]
    assert [app["id"] for app in await apps_named(tenant, "Retried")] == [first[1]["data"]["id"]]


async def test_concurrent_creates_with_one_key_store_one_app(tenant: Tenant):
    answers = await asyncio.gather(*(post_app(tenant, "Raced", "create-raced") for _ in range(4)))
    created = [body for status, body, _ in answers if status == 201]
    busy = [body for status, body, _ in answers if status == 409]
    assert len(created) + len(busy) == 4 and created
    assert all(body["code"] == "IDEMPOTENCY_IN_PROGRESS" for body in busy)
    assert len({body["data"]["id"] for body in created}) == 1
    assert len(await apps_named(tenant, "Raced")) == 1


async def test_the_same_key_for_another_app_is_a_422_and_creates_nothing(tenant: Tenant, other_tenant: Tenant):
    await post_app(tenant, "First", "create-reused")
    status, body, _ = await post_app(tenant, "Second", "create-reused")
    assert (status, body["code"]) == (422, "IDEMPOTENCY_KEY_REUSED")
    assert await apps_named(tenant, "Second") == []
    status, body, headers = await post_app(other_tenant, "Second", "create-reused")
    assert status == 201 and "Idempotent-Replayed" not in headers
