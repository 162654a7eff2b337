"""A gateway with a clock the tests move, and helpers that speak the OAuth endpoints."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from libs.common.db import cursor
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org
from tests.gateway.dashboard_client import signed_in, submit

CLI = "aivis-cli"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def oauth(stack: Stack, clock: Clock) -> AsyncIterator[Client]:
    client = await stack.start_gateway(clock=clock)
    yield client
    await client.close()


async def post_form(client: Client, path: str, **form: str) -> tuple[int, dict[str, Any]]:
    response = await client.post(path, data=form)
    return response.status, await response.json()


async def start_device(client: Client, **form: str) -> dict[str, Any]:
    status, body = await post_form(client, "/api/v1/oauth/device/code", client_id=CLI, **form)
    assert status == 200, body
    return body


async def poll(client: Client, device_code: str) -> tuple[int, dict[str, Any]]:
    return await post_form(
        client, "/api/v1/oauth/token", grant_type=DEVICE_GRANT, client_id=CLI, device_code=device_code
    )


async def refresh(client: Client, refresh_token: str) -> tuple[int, dict[str, Any]]:
    return await post_form(
        client, "/api/v1/oauth/token", grant_type="refresh_token", client_id=CLI, refresh_token=refresh_token
    )


async def decide(client: Client, identity: IdentityFactory, org: Org, role: str, user_code: str, decision: str) -> str:
    """A member of `org` signs in to the dashboard and decides on the device page; returns the user's id."""
    email, password = await identity.account((org, role))
    await signed_in(client, email, password)
    page = f"/device?user_code={user_code}"
    fields = {"user_code": user_code, "organization": org.slug, "decision": decision}
    response = await submit(client, page, fields, action="/device")
    assert response.status == 200, await response.text()
    async with cursor(identity.pool) as cur:
        await cur.execute("SELECT id FROM users WHERE email = %s", (email,))
        return str((await cur.fetchone())["id"])


async def approved_tokens(
    client: Client, clock: Clock, identity: IdentityFactory, org: Org, role: str = "owner"
) -> tuple[str, dict[str, Any]]:
    """A user of the organization with tokens from an approved device flow."""
    started = await start_device(client)
    user_id = await decide(client, identity, org, role, started["user_code"], "approve")
    clock.advance(started["interval"])
    status, tokens = await poll(client, started["device_code"])
    assert status == 200, tokens
    return user_id, tokens
