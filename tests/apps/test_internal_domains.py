"""The apps service's internal domain resolution, which the content service validates against."""

from __future__ import annotations

import uuid

import aiohttp
import pytest

from libs.common.db import cursor
from libs.common.errors import Conflict
from libs.common.internal_token import HEADER, Organization, mint, service_caller
from tests.factories import DomainFactory, IdentityFactory


async def resolve(stack, org, ids, token: str | None = "default"):
    if token == "default":
        caller = service_caller("content", Organization(org.id, org.slug, org.name))
        token = mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)
    headers = {HEADER: token} if token else {}
    url = stack.servers["apps"].make_url("/internal/domains/resolve")
    async with aiohttp.ClientSession() as session, session.post(url, json={"ids": ids}, headers=headers) as response:
        return response.status, await response.json()


async def test_resolves_only_the_callers_live_domains(stack, identity: IdentityFactory, domains: DomainFactory):
    org, other = await identity.organization(), await identity.organization()
    mine = await domains.create(org)
    theirs = await domains.create(other)
    status, body = await resolve(stack, org, [mine["id"], theirs["id"], str(uuid.uuid4())])
    assert status == 200
    assert body == {"domains": [mine]}


async def test_released_and_lapsed_domains_are_not_resolved(
    stack, identity: IdentityFactory, domains: DomainFactory, apps_pool
):
    org = await identity.organization()
    held, lapsed, released = [await domains.create(org) for _ in range(3)]
    async with cursor(apps_pool) as cur:
        await cur.execute(
            "UPDATE domains SET verified_at = NULL, expires_at = clock_timestamp() - interval '1 second' WHERE id = %s",
            (lapsed["id"],),
        )
        await cur.execute(
            "UPDATE domains SET released_at = clock_timestamp(), release_reason = 'claimed' WHERE id = %s",
            (released["id"],),
        )
    status, body = await resolve(stack, org, [held["id"], lapsed["id"], released["id"]])
    assert (status, body) == (200, {"domains": [held]})


async def test_requires_the_internal_token(stack, identity: IdentityFactory):
    org = await identity.organization()
    status, body = await resolve(stack, org, [str(uuid.uuid4())], token=None)
    assert status == 401
    assert body["code"] == "UNAUTHORIZED"


async def test_refuses_malformed_ids(stack, identity: IdentityFactory):
    org = await identity.organization()
    status, body = await resolve(stack, org, ["not-a-uuid"])
    assert status == 422
    assert body["details"] == {"ids.0": "Not a valid UUID."}


async def test_a_live_hostname_cannot_be_claimed_twice(identity: IdentityFactory, domains: DomainFactory):
    org, other = await identity.organization(), await identity.organization()
    first = await domains.create(org)
    with pytest.raises(Conflict, match="already in use"):
        await domains.create(other, hostname=first["domain"])


async def by_host(stack, org, hosts):
    caller = service_caller("traffic", Organization(org.id, org.slug, org.name))
    headers = {HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], caller)}
    url = stack.servers["apps"].make_url("/internal/domains/by-host")
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json={"hosts": hosts}, headers=headers) as response,
    ):
        return response.status, await response.json()


async def test_hosts_are_answered_with_their_app_only_for_the_callers_app_domains(
    stack, identity: IdentityFactory, domains: DomainFactory, apps_pool
):
    org, other = await identity.organization(), await identity.organization()
    mine, released = await domains.create(org), await domains.create(org)
    theirs = await domains.create(other)
    async with cursor(apps_pool) as cur:
        await cur.execute(
            "UPDATE domains SET released_at = clock_timestamp(), release_reason = 'claimed' WHERE id = %s",
            (released["id"],),
        )
        await cur.execute("SELECT app_id FROM domains WHERE id = %s", (mine["id"],))
        (app_id,) = (await cur.fetchone()).values()
    hosts = [mine["domain"], released["domain"], theirs["domain"], "nobody.example.org"]
    status, body = await by_host(stack, org, hosts)
    assert (status, body) == (200, {"domains": [{**mine, "appId": str(app_id), "verified": True}]})
