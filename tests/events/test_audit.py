"""The audit trail: what the gateway records of changing requests, refused credentials, sign-ins
and operator commands, as `GET /api/v1/audit-events` answers it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from gateway.identity.auth.scopes import ALL_SCOPES
from libs.contract.parts import GATEWAY
from tests.conftest import Stack
from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.factories import IdentityFactory, eventually


async def audit_events(tenant: Tenant, query: str = "", key: str | None = None) -> list[dict[str, Any]]:
    status, answer = await tenant.call("GET", f"/api/v1/audit-events{query}", key=key)
    assert status == 200, answer
    events: list[dict[str, Any]] = answer["data"]["events"]
    return events


async def until_audited(tenant: Tenant, count: int, query: str = "") -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    async def enough() -> bool:
        found[:] = await audit_events(tenant, query)
        return len(found) >= count

    await eventually(enough, within=20.0)
    return found


async def test_a_change_through_the_api_is_recorded(tenant: Tenant):
    status, created = await tenant.call(
        "POST",
        "/api/v1/webhook-endpoints",
        json={"url": "https://example.com/hook", "events": ["*"]},
        headers={"X-Request-Id": "audit-req-1"},
    )
    assert status == 201
    [event] = await until_audited(tenant, 1, "?action=webhook_endpoint.created")
    assert event["actor"] == {"kind": "api_key", "id": event["actor"]["id"], "label": tenant.key[:12]}
    assert event["resource"] == {"type": "webhook_endpoint", "id": created["data"]["id"]}
    assert event["requestId"] == "audit-req-1"
    assert event["clientAddress"] == "127.0.0.1"
    assert (event["method"], event["path"], event["status"], event["result"]) == (
        "POST",
        "/api/v1/webhook-endpoints",
        201,
        "success",
    )


async def test_reads_are_not_recorded_and_failures_are(tenant: Tenant):
    await tenant.call("GET", "/api/v1/webhook-endpoints")
    status, _ = await tenant.call(
        "PATCH", "/api/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000", json={"enabled": False}
    )
    assert status == 404
    [event] = await until_audited(tenant, 1)
    assert (event["action"], event["result"], event["status"]) == ("webhook_endpoint.updated", "failure", 404)
    assert event["resource"] == {"type": "webhook_endpoint", "id": "00000000-0000-4000-8000-000000000000"}


async def test_a_refused_key_is_recorded_for_its_organization(identity: IdentityFactory, tenant: Tenant):
    revoked = await identity.api_key(tenant.org)
    await identity.revoke(revoked[:12])

    async def refused() -> bool:
        status, _ = await tenant.call("GET", "/api/v1/products", key=revoked)
        return status == 401

    await eventually(refused)
    [event] = await until_audited(tenant, 1, "?action=credential.refused")
    assert event["actor"]["label"] == revoked[:12]
    assert (event["result"], event["status"]) == ("failure", 401)


async def test_filters_cursor_and_the_organizations_own_only(stack: Stack, identity: IdentityFactory, tenant: Tenant):
    for index in range(3):
        await tenant.call(
            "POST", "/api/v1/webhook-endpoints", json={"url": f"https://example.com/{index}", "events": ["*"]}
        )
    other_org = await identity.organization()
    other = Tenant(other_org, await identity.api_key(other_org), stack.gateway, {})
    await other.call("POST", "/api/v1/webhook-endpoints", json={"url": "https://example.com/x", "events": ["*"]})
    events = await until_audited(tenant, 3)
    times = [event["occurredAt"] for event in events]
    assert times == sorted(times, reverse=True)
    status, page = await tenant.call("GET", "/api/v1/audit-events?limit=2")
    assert status == 200 and len(page["data"]["events"]) == 2
    cursor = page["data"]["nextCursor"]
    status, rest = await tenant.call("GET", f"/api/v1/audit-events?limit=2&cursor={cursor}")
    assert [event["id"] for event in page["data"]["events"] + rest["data"]["events"]] == [e["id"] for e in events]
    assert rest["data"]["nextCursor"] is None
    assert await audit_events(tenant, f"?actor={other.key[:12]}") == []
    assert len(await audit_events(tenant, f"?actor={tenant.key[:12]}")) == 3
    assert await audit_events(tenant, "?since=2999-01-01T00:00:00Z") == []
    status, answer = await tenant.call("GET", "/api/v1/audit-events?cursor=nonsense")
    assert status == 422 and "cursor" in answer["details"]


async def test_logs_read_is_required(identity: IdentityFactory, tenant: Tenant):
    key = await identity.api_key(tenant.org, ALL_SCOPES - {"logs:read"})
    status, answer = await tenant.call("GET", "/api/v1/audit-events", key=key)
    assert status == 403 and answer["details"] == {"requiredScope": "logs:read"}


async def test_failed_and_successful_sign_ins_are_recorded(stack: Stack, identity: IdentityFactory, tenant: Tenant):
    email, password = await identity.account((tenant.org, "admin"))
    async with stack.gateway.get("/login") as page:
        text = await page.text()
    token = text.split('name="csrf_token" value="')[1].split('"')[0]
    for attempt in ("wrong-password", password):
        form = {"email": email, "password": attempt, "csrf_token": token}
        async with stack.gateway.post("/login", data=form, allow_redirects=False) as answer:
            assert answer.status in (401, 303)
        if attempt != password:
            async with stack.gateway.get("/login") as page:
                token = (await page.text()).split('name="csrf_token" value="')[1].split('"')[0]
    events = await until_audited(tenant, 2, "?action=session.sign_in")
    assert [(event["result"], event["actor"]["label"]) for event in events] == [("success", email), ("failure", email)]


async def test_operator_commands_are_recorded_and_key_changes_delivered(
    stack: Stack, tenant: Tenant, receivers: list[Receiver]
):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["api_key.created", "api_key.revoked"])
    environ = {**os.environ, **stack.part_environ(GATEWAY)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gateway.admin",
            "--json",
            "create-key",
            "--org",
            tenant.org.slug,
            "--name",
            "ci",
            "--scopes",
            "content:read",
        ],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    created = json.loads(done.stdout)
    [event] = await until_audited(tenant, 1, "?action=operator.create_key")
    assert event["actor"]["kind"] == "operator"
    assert event["resource"] == {"type": "key", "id": created["id"]}
    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["secret"])
    assert payload["type"] == "api_key.created"
    assert payload["data"]["id"] == created["id"]
    assert payload["data"]["prefix"] == created["prefix"]
    assert "key" not in payload["data"] and "keyHash" not in payload["data"]
