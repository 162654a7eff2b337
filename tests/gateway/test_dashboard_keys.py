"""The API-keys pages over HTTP: create, revoke and rotate as the API then sees them; roles; tenancy."""

from __future__ import annotations

import asyncio
import html
import time
from datetime import UTC, datetime, timedelta

from gateway.identity.auth import key_queries
from libs.common.db import cursor, transaction
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org
from tests.gateway.dashboard_client import secret_in, shown_once, signed_in, submit

RUNS = "/api/v1/agent-simulation/runs"


def keys_page(org: Org) -> str:
    return f"/{org.slug}/settings/api-keys"


async def status_with(client: Client, key: str) -> int:
    return (await client.get(RUNS, headers={"x-api-key": key})).status


async def refused_within(client: Client, key: str, seconds: float) -> float:
    """How long until the gateway refuses the key (fails the test past `seconds`)."""
    started = time.monotonic()
    while await status_with(client, key) != 401:
        assert time.monotonic() - started < seconds, "still accepted"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def create_key(client: Client, org: Org, name: str, scopes: list[str], expiry: str = "never") -> str:
    fields = [("name", name), *(("scopes", scope) for scope in scopes), ("expiry", expiry)]
    response = await submit(client, keys_page(org), fields)
    return secret_in(await shown_once(client, response))


async def stored_key(identity: IdentityFactory, org: Org, secret: str) -> dict:
    async with cursor(identity.pool) as cur:
        rows = await key_queries.list_api_keys(cur, org.id)
    (row,) = [row for row in rows if secret.startswith(row["prefix"] + "_")]
    return row


async def events_of(identity: IdentityFactory, key_id: str) -> list[tuple[str, str, dict]]:
    async with cursor(identity.pool) as cur:
        return [(row["actor"], row["action"], row["details"]) for row in await key_queries.list_key_events(cur, key_id)]


async def test_an_owner_creates_a_key_the_api_accepts_then_revokes_it(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    client = await signed_in(stack.gateway, email, password)
    response = await submit(
        client,
        keys_page(org),
        [("name", "sync job"), ("scopes", "simulations:read"), ("scopes", "content:read"), ("expiry", "30")],
    )
    page = await shown_once(client, response)
    secret = secret_in(page)
    assert f'curl -s -H "x-api-key: {secret}" http://127.0.0.1:{stack.gateway.port}{RUNS}' in html.unescape(page)
    assert response.headers["Cache-Control"] == "no-store"
    row = await stored_key(identity, org, secret)
    assert (row["name"], row["scopes"]) == ("sync job", ["content:read", "simulations:read"])
    assert abs(row["expires_at"] - (datetime.now(UTC) + timedelta(days=30))) < timedelta(minutes=1)
    assert await status_with(client, secret) == 200

    listing = await (await client.get(keys_page(org))).text()
    assert row["prefix"] in listing and secret not in listing  # the secret is never shown again
    response = await submit(client, f"{keys_page(org)}/{row['id']}/revoke", {})
    assert (response.status, response.headers["Location"]) == (303, keys_page(org))
    assert "is revoked" in await (await client.get(keys_page(org))).text()
    assert await refused_within(client, secret, 2.0) < 2.0
    assert [event[:2] for event in await events_of(identity, row["id"])] == [(email, "created"), (email, "revoked")]
    history = await (await client.get(f"{keys_page(org)}/{row['id']}")).text()
    assert f"Created by <strong>{email}</strong>" in history and f"Revoked by <strong>{email}</strong>" in history
    again = await submit(client, keys_page(org), {}, action=f"{keys_page(org)}/{row['id']}/revoke")
    assert again.status == 409


async def test_a_form_with_mistakes_is_shown_again_with_them(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "admin")))
    response = await submit(client, keys_page(org), [("name", "  "), ("expiry", "forever")])
    page = await response.text()
    assert response.status == 422
    assert "Give the key a name" in page and "Choose at least one scope." in page
    assert "Choose one of the expiry options." in page
    response = await submit(client, keys_page(org), [("name", "x"), ("scopes", "root:all")])
    assert response.status == 422 and "Only the scopes listed can be chosen." in await response.text()
    async with cursor(identity.pool) as cur:
        assert await key_queries.list_api_keys(cur, org.id) == []


async def test_a_rotation_keeps_both_keys_working_until_the_grace_period_ends(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    email, password = await identity.account((org, "owner"))
    client = await signed_in(stack.gateway, email, password)
    old = await create_key(client, org, "billing", ["simulations:read", "content:read", "content:write"])
    old_row = await stored_key(identity, org, old)
    rotate = f"{keys_page(org)}/{old_row['id']}/rotate"
    form = await (await client.get(rotate)).text()
    assert form.count("checked") == 3 and 'value="billing"' in form  # pre-filled with the old key's scopes

    wider = await submit(client, rotate, [("name", "billing 2"), ("scopes", "prompts:read"), ("grace", "24")])
    assert wider.status == 422 and "Only the scopes listed can be chosen." in await wider.text()
    too_long = await submit(client, rotate, [("name", "billing 2"), ("scopes", "content:read"), ("grace", "169")])
    assert too_long.status == 422

    response = await submit(client, rotate, [("name", "billing 2"), ("scopes", "simulations:read"), ("grace", "24")])
    page = await shown_once(client, response)
    new = secret_in(page)
    assert "which keeps working until" in page
    await asyncio.sleep(1.5)  # revocation polls come and go: the old key is not due yet
    assert (await status_with(client, old), await status_with(client, new)) == (200, 200)
    old_row = await stored_key(identity, org, old)
    assert abs(old_row["revoked_at"] - (datetime.now(UTC) + timedelta(hours=24))) < timedelta(minutes=1)
    assert (await stored_key(identity, org, new))["scopes"] == ["simulations:read"]

    # A gateway whose clock reads after the grace period refuses the old key and takes the new one.
    later = await stack.start_gateway(clock=lambda: datetime.now(UTC) + timedelta(hours=24, minutes=1))
    try:
        assert (await status_with(later, old), await status_with(later, new)) == (401, 200)
        assert (
            "Revoked"
            in await (
                await later.get(keys_page(org), cookies=client.session.cookie_jar.filter_cookies(client.make_url("/")))
            ).text()
        )
    finally:
        await later.close()
    actions = [(actor, action) for actor, action, _ in await events_of(identity, old_row["id"])]
    assert actions == [(email, "created"), (email, "rotated")]
    history = await (await client.get(f"{keys_page(org)}/{old_row['id']}")).text()
    assert "Rotated by" in history and new[:12] in history


async def test_a_rotation_without_grace_revokes_the_old_key_at_once(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    client = await signed_in(stack.gateway, *await identity.account((org, "owner")))
    old = await create_key(client, org, "crawler", ["simulations:read"])
    assert await status_with(client, old) == 200
    old_row = await stored_key(identity, org, old)
    rotate = f"{keys_page(org)}/{old_row['id']}/rotate"
    response = await submit(client, rotate, [("name", "crawler"), ("scopes", "simulations:read"), ("grace", "0")])
    new = secret_in(await shown_once(client, response))
    assert await refused_within(client, old, 2.0) < 2.0
    assert await status_with(client, new) == 200


async def test_a_scheduled_revocation_reaches_a_replica_that_cached_the_key(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    replica = await stack.start_gateway()
    try:
        assert await status_with(replica, key) == 200  # cached before the revocation was scheduled
        async with transaction(identity.pool) as cur:
            row = await stored_key(identity, org, key)
            await key_queries.revoke_organization_key(cur, org.id, str(row["id"]), timedelta(seconds=2))
        assert await status_with(replica, key) == 200
        assert 1.0 < await refused_within(replica, key, 4.0)
    finally:
        await replica.close()


async def test_members_and_viewers_see_the_keys_but_cannot_change_them(stack: Stack, identity: IdentityFactory):
    org = await identity.organization()
    key = await identity.api_key(org)
    row = await stored_key(identity, org, key)
    for role in ("member", "viewer"):
        client = await signed_in(stack.gateway, *await identity.account((org, role)))
        listing = await client.get(keys_page(org))
        page = await listing.text()
        assert listing.status == 200 and row["prefix"] in page
        assert "Create a key" not in page and "/revoke" not in page and f"You are a <strong>{role}</strong>" in page
        created = await submit(client, keys_page(org), [("name", "mine"), ("scopes", "content:read")])
        assert created.status == 403 and "Only owners and admins" in await created.text()
        assert (await client.get(f"{keys_page(org)}/{row['id']}/revoke")).status == 403
        revoked = await submit(client, keys_page(org), {}, action=f"{keys_page(org)}/{row['id']}/revoke")
        assert revoked.status == 403
        assert (await client.get(f"{keys_page(org)}/{row['id']}")).status == 200  # the history is readable
        client.session.cookie_jar.clear()
    assert await status_with(stack.gateway, key) == 200
    async with cursor(identity.pool) as cur:
        assert len(await key_queries.list_api_keys(cur, org.id)) == 1


async def test_another_organizations_pages_are_not_found(stack: Stack, identity: IdentityFactory):
    mine, theirs = await identity.organization(), await identity.organization()
    their_key = await stored_key(identity, theirs, await identity.api_key(theirs))
    client = await signed_in(stack.gateway, *await identity.account((mine, "owner")))
    for path in (
        keys_page(theirs),
        f"{keys_page(theirs)}/{their_key['id']}",
        f"{keys_page(mine)}/{their_key['id']}",  # their key under my organization
        f"{keys_page(mine)}/not-a-key",
        "/no-such-organization/settings/api-keys",
    ):
        response = await client.get(path)
        assert response.status == 404, path
        assert "text/html" in response.headers["Content-Type"]
        assert "Page not found" in await response.text()
    response = await submit(client, keys_page(mine), {}, action=f"{keys_page(mine)}/{their_key['id']}/revoke")
    assert response.status == 404
    async with cursor(identity.pool) as cur:
        assert (await key_queries.find_organization_key(cur, theirs.id, str(their_key["id"])))["revoked_at"] is None


async def test_the_switcher_moves_the_session_to_another_organization(stack: Stack, identity: IdentityFactory):
    first, second, stranger = (
        await identity.organization(),
        await identity.organization(),
        await identity.organization(),
    )
    client = await signed_in(stack.gateway, *await identity.account((first, "owner"), (second, "viewer")))
    page = await (await client.get("/orgs")).text()
    assert first.name in page and second.name in page and stranger.name not in page
    response = await submit(client, "/orgs", {"organization": second.slug})
    assert (response.status, response.headers["Location"]) == (303, f"/{second.slug}")
    listing = await (await client.get(keys_page(second))).text()
    assert f'value="{second.slug}" selected' in listing
    assert (await submit(client, "/orgs", {"organization": stranger.slug})).status == 404
