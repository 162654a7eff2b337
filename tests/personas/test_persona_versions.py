"""ETag, If-Match and If-None-Match on one persona."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from tests.personas.conftest import Tenant


async def send(tenant: Tenant, method: str, path: str, json: Any = None, **headers: str) -> tuple[int, Any, Any]:
    headers = {name.replace("_", "-"): value for name, value in headers.items()}
    async with tenant.gateway.request(
        method, path, json=json, headers={"x-api-key": tenant.key, **headers}
    ) as response:
        body = await response.json() if await response.read() else None
        return response.status, body, response.headers


async def test_a_persona_carries_an_etag_that_each_write_moves(tenant: Tenant):
    _, created, created_headers = await send(
        tenant,
        "POST",
        f"/api/v1/products/{tenant.product['id']}/personas",
        {"name": "Versioned", "description": "Reads the docs."},
    )
    path = f"/api/v1/personas/{created['data']['id']}"
    status, body, headers = await send(tenant, "GET", path)
    assert status == 200 and body["data"] == created["data"]
    assert headers["ETag"] == created_headers["ETag"]
    assert (await send(tenant, "GET", path, If_None_Match=headers["ETag"]))[:2] == (304, None)
    _, _, updated_headers = await send(tenant, "PUT", path, {"description": "Skims the docs."})
    assert updated_headers["ETag"] != headers["ETag"]
    assert (await send(tenant, "GET", path, If_None_Match=headers["ETag"]))[0] == 200


async def test_of_concurrent_updates_from_one_version_exactly_one_wins(tenant: Tenant):
    persona = await tenant.persona()
    path = f"/api/v1/personas/{persona['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    answers = await asyncio.gather(
        *(send(tenant, "PUT", path, {"description": f"Editor {n}"}, If_Match=seen) for n in range(4))
    )
    assert sorted(status for status, _, _ in answers) == [200, 412, 412, 412]
    winner = next((body, headers) for status, body, headers in answers if status == 200)
    refused = next(body for status, body, _ in answers if status == 412)
    assert (refused["code"], refused["details"]) == ("PRECONDITION_FAILED", {"etag": winner[1]["ETag"]})
    stored = await send(tenant, "GET", path)
    assert stored[1]["data"]["description"] == winner[0]["data"]["description"]


async def test_a_deleted_or_unknown_persona_is_404(tenant: Tenant, stranger: Tenant):
    persona = await tenant.persona()
    assert (await send(stranger, "GET", f"/api/v1/personas/{persona['id']}"))[0] == 404
    await send(tenant, "DELETE", f"/api/v1/personas/{persona['id']}")
    for persona_id in (persona["id"], str(uuid.uuid4())):
        status, body, _ = await send(tenant, "GET", f"/api/v1/personas/{persona_id}")
        assert (status, body["code"]) == (404, "NOT_FOUND")


async def test_a_stale_if_match_does_not_delete_a_persona(tenant: Tenant):
    persona = await tenant.persona()
    path = f"/api/v1/personas/{persona['id']}"
    seen = (await send(tenant, "GET", path))[2]["ETag"]
    _, _, changed = await send(tenant, "PUT", path, {"description": "Changed meanwhile."})
    status, body, _ = await send(tenant, "DELETE", path, If_Match=seen)
    assert (status, body["code"], body["details"]) == (412, "PRECONDITION_FAILED", {"etag": changed["ETag"]})
    assert (await send(tenant, "GET", path))[0] == 200
    status, _, _ = await send(tenant, "DELETE", path, If_Match=changed["ETag"])
    assert status == 200 and (await send(tenant, "GET", path))[0] == 404
