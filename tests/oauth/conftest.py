"""A gateway with a clock the tests move, and helpers that speak the OAuth endpoints."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gateway.oauth import device
from libs.common.db import transaction
from tests.conftest import Client, Stack
from tests.factories import IdentityFactory, Org

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


async def decide(identity: IdentityFactory, user_code: str, user_id: str, org: Org, role: str, approve: bool) -> None:
    """The decision the device page records for a signed-in user."""
    async with transaction(identity.pool) as cur:
        row = await device.decide(
            cur, device.normalize_user_code(user_code) or "", user_id, org.id, role, approve, datetime.now(UTC)
        )
    assert row is not None


async def approved_tokens(
    client: Client, clock: Clock, identity: IdentityFactory, org: Org, role: str = "owner"
) -> tuple[str, dict[str, Any]]:
    """A user of the organization with tokens from an approved device flow."""
    user_id = await identity.user(org, role)
    started = await start_device(client)
    await decide(identity, started["user_code"], user_id, org, role, approve=True)
    clock.advance(started["interval"])
    status, tokens = await poll(client, started["device_code"])
    assert status == 200, tokens
    return user_id, tokens
