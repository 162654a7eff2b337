"""The audit trail reads like a log a person wants: one name per resource type, actions as a
person says them (`app.created`), no reads, the user and the device behind a CLI token, and
sign-outs, from the command line and the dashboard."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from gateway.audit_names import COLLECTIONS, audit_name
from gateway.edge.route_table import ROUTES
from gateway.identity.oauth import queries as oauth_queries
from libs.common.db import transaction
from tests.conftest import Stack
from tests.events.conftest import Tenant
from tests.events.test_audit import audit_events, until_audited
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import signed_in, submit

ACTION = re.compile(r"[a-z_]+\.[a-z_]+")


def test_every_change_the_api_declares_has_a_type_and_an_action_a_person_reads():
    names = {}
    for route in ROUTES:
        if route.method == "GET" or route.read_only:
            continue
        parameters = {name: "x" for name in re.findall(r"\{(\w+)\}", route.path)}
        named = audit_name(route, parameters, None)
        assert ACTION.fullmatch(named.action) and named.resource_type in COLLECTIONS.values(), route.path
        names[route.name] = named.action
    assert names["apps_create"] == "app.created" and names["apps_delete"] == "app.deleted"
    assert names["apps_domains_verify"] == "domain.verified" and names["apps_routes_batch"] == "route.created"
    assert names["webhook_endpoints_rotate_secret"] == "webhook_endpoint.secret_rotated"


async def test_one_type_names_an_app_whatever_was_done_and_previews_are_not_recorded(tenant: Tenant):
    status, created = await tenant.call("POST", "/api/v1/apps", json={"name": "Docs"})
    assert status == 201, created
    app_id = created["data"]["id"]
    assert (await tenant.call("PATCH", f"/api/v1/apps/{app_id}", json={"name": "Handbook"}))[0] == 200
    preview = {"routes": [{"path": "/a", "targetId": "00000000-0000-4000-8000-000000000000"}]}
    status, _ = await tenant.call("POST", f"/api/v1/apps/{app_id}/routes/import-preview", json=preview)
    assert status in (200, 422)
    await tenant.call("GET", f"/api/v1/apps/{app_id}")
    events = await until_audited(tenant, 2, "?resourceType=app")
    assert [(e["action"], e["resource"]) for e in events] == [
        ("app.updated", {"type": "app", "id": app_id}),
        ("app.created", {"type": "app", "id": app_id}),
    ]
    assert [e["action"] for e in await audit_events(tenant)] == ["app.updated", "app.created"]  # no preview, no read


async def test_a_cli_token_is_shown_as_its_user_and_device_and_its_sign_out_is_recorded(
    stack: Stack, identity: IdentityFactory, tenant: Tenant
):
    email, _ = await identity.account((tenant.org, "owner"))
    async with transaction(identity.pool) as cur:
        await cur.execute("SELECT id FROM users WHERE email = %s", (email,))
        user_id = str((await cur.fetchone())["id"])
        grant = await oauth_queries.insert_grant(
            cur,
            "aivis-cli",
            user_id,
            tenant.org.id,
            ["webhooks:write"],
            datetime.now(UTC),
            "aivis on build-box (profile ci)",
        )
    token = identity.signer.mint(user_id, tenant.org.id, frozenset({"webhooks:write"}), grant_id=grant)
    bearer = {"Authorization": f"Bearer {token}"}
    async with stack.gateway.post(
        "/api/v1/webhook-endpoints", headers=bearer, json={"url": "https://example.com/hook", "events": ["*"]}
    ) as answer:
        assert answer.status == 201, await answer.text()
    [created] = await until_audited(tenant, 1, "?action=webhook_endpoint.created")
    device = f"{email} via aivis on build-box (profile ci)"
    assert created["actor"] == {"kind": "bearer", "id": user_id, "label": device}
    form = {"client_id": "aivis-cli", "token": token, "token_type_hint": "access_token"}
    async with stack.gateway.post("/api/v1/oauth/revoke", data=form) as answer:
        assert answer.status == 200
    async with stack.gateway.post("/api/v1/oauth/revoke", data=form) as answer:
        assert answer.status == 200  # revoked already: no second sign-out
    [signed_out] = await until_audited(tenant, 1, "?action=device.signed_out")
    assert signed_out["actor"]["label"] == device
    assert signed_out["result"] == "success"


async def test_a_dashboard_sign_out_is_recorded(stack: Stack, identity: IdentityFactory, tenant: Tenant):
    email, password = await identity.account((tenant.org, "admin"))
    client = await signed_in(stack.gateway, email, password)
    response = await submit(client, f"/{tenant.org.slug}", {}, action="/logout")
    assert response.status == 303
    [event] = await until_audited(tenant, 1, "?action=session.sign_out")
    assert (event["actor"]["kind"], event["actor"]["label"], event["result"]) == ("session", email, "success")
