"""A device names itself when it asks to sign in (`device_name`, an addition to RFC 8628); the
name is kept on the grant and is how the Security page lists the device."""

from __future__ import annotations

from libs.common.db import cursor
from tests.conftest import Client
from tests.factories import IdentityFactory
from tests.gateway.dashboard_client import page
from tests.oauth.conftest import CLI, Clock, decide, poll, post_form, start_device


async def test_the_name_a_device_gives_is_kept_on_its_grant_and_shown_on_the_security_page(
    oauth: Client, clock: Clock, identity: IdentityFactory
):
    org = await identity.organization()
    started = await start_device(oauth, device_name="  aivis on build-box   (profile  staging) ")
    user_id = await decide(oauth, identity, org, "owner", started["user_code"], "approve")
    clock.advance(started["interval"])
    status, tokens = await poll(oauth, started["device_code"])
    assert status == 200, tokens
    async with cursor(identity.pool) as cur:
        await cur.execute("SELECT device_name FROM oauth_grants WHERE user_id = %s", (user_id,))
        assert [row["device_name"] for row in await cur.fetchall()] == ["aivis on build-box (profile staging)"]
    security = await page(oauth, f"/{org.slug}/settings/security")
    assert "aivis on build-box (profile staging)" in security


async def test_a_device_name_that_is_empty_too_long_or_unprintable_is_an_invalid_request(oauth: Client):
    for name in ("   ", "x" * 101, "bad\u0007name"):
        status, body = await post_form(oauth, "/api/v1/oauth/device/code", client_id=CLI, device_name=name)
        assert (status, body["error"]) == (400, "invalid_request"), name
        assert "device_name" in body["error_description"]
