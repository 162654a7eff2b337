"""Search requests go to their organization's replica (consistent hashing), and to the next one
on the ring while it does not answer."""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.test_utils import TestServer

from gateway import contract as gateway_contract
from gateway.edge.replicas import Replicas, Ring, resolved_urls
from libs.contract.route import Route
from tests.factories import IdentityFactory

ROUTES = (
    *gateway_contract.ROUTES,
    Route(
        "POST",
        "/api/v1/content/search/{orgId}",
        "search",
        "content:read",
        "search",
        "Search",
        org_param="orgId",
        tag="Content",
    ),
)


def test_the_ring_spreads_keys_evenly_and_a_removed_replica_moves_only_its_own():
    members = [f"http://10.0.0.{n}:8084" for n in range(1, 4)]
    ring = Ring(members)
    keys = [f"org-{n}" for n in range(3000)]
    owners = {key: ring.order(key)[0] for key in keys}
    shares = Counter(owners.values())
    assert set(shares) == set(members)
    assert all(700 < count < 1300 for count in shares.values()), shares
    assert all(sorted(ring.order(key)) == sorted(members) for key in keys[:50])
    smaller = Ring(members[:2])
    for key, owner in owners.items():
        if owner != members[2]:
            assert smaller.order(key)[0] == owner  # nothing moves but what the removed one owned
        else:
            assert smaller.order(key)[0] == ring.order(key)[1]  # to its fallback


def test_a_replica_that_refused_goes_last_for_a_while():
    now = [0.0]
    replicas = Replicas("http://a:1, http://b:1,http://c:1/", clock=lambda: now[0])
    owner, fallback = replicas.candidates("org")
    replicas.mark_down(owner)
    assert replicas.candidates("org")[0] == fallback
    now[0] += 60
    assert replicas.candidates("org") == [owner, fallback]


def test_one_replica_spelled_twice_is_on_the_ring_once():
    replicas = Replicas("http://search-1:8084, HTTP://Search-1:8084/, http://search-2:8084")
    assert replicas.ring.members == ("http://search-1:8084", "http://search-2:8084")


def test_resolved_addresses_make_urls_an_ipv6_address_in_brackets_and_each_pod_once():
    def infos(*hosts: str) -> list[tuple]:
        return [
            (socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, 6, "", (host, 8084))
            for host in hosts
        ]

    assert resolved_urls("http", 8084, infos("fd00::1", "fd00::2")) == {
        "http://[fd00::1]:8084",
        "http://[fd00::2]:8084",
    }
    # Dual stack: every pod answers with both families; one family, so each pod is there once.
    dual = infos("10.0.0.1", "fd00::1", "10.0.0.2", "fd00::2", "10.0.0.1")
    assert resolved_urls("http", 8084, dual) == {"http://10.0.0.1:8084", "http://10.0.0.2:8084"}
    assert Ring(resolved_urls("http", 8084, dual)).order("org")[0].startswith("http://10.0.0.")
    assert urlsplit("http://[fd00::1]:8084").port == 8084  # what the proxy will connect to


async def test_a_name_resolving_to_ipv6_addresses_routes_to_bracketed_urls(monkeypatch):
    async def getaddrinfo(host: str, port: int, **_: object) -> list[tuple]:
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("fd00::7", port, 0, 0))]

    replicas = Replicas("dns+http://search-replicas:8084")
    monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
    await replicas.refresh()
    assert replicas.candidates("org") == ["http://[fd00::7]:8084"]


def replica(name: str) -> web.Application:
    async def search(request: web.Request) -> web.Response:
        return web.json_response({"replica": name, "org": request.match_info["orgId"]})

    app = web.Application()
    app.router.add_post("/api/v1/content/search/{orgId}", search)
    return app


async def test_each_organization_is_served_by_its_own_replica_and_its_fallback_when_down(
    stack, identity: IdentityFactory
):
    servers = {name: TestServer(replica(name)) for name in ("r1", "r2", "r3")}
    for server in servers.values():
        await server.start_server()
    urls = {name: str(server.make_url("")).rstrip("/") for name, server in servers.items()}
    client = await stack.start_gateway({"SEARCH_REPLICAS": ",".join(urls.values())}, routes=ROUTES)
    by_url = {url: name for name, url in urls.items()}
    ring = Replicas(",".join(urls.values())).ring
    try:
        orgs = [await identity.organization() for _ in range(30)]
        keys = {org.id: await identity.api_key(org) for org in orgs}

        async def served(org_id: str) -> str:
            response = await client.post(
                f"/api/v1/content/search/{org_id}", json={}, headers={"x-api-key": keys[org_id]}
            )
            assert response.status == 200
            data = (await response.json())["data"]
            assert data["org"] == org_id
            return str(data["replica"])

        first = {org.id: await served(org.id) for org in orgs}
        assert {org.id: await served(org.id) for org in orgs} == first  # always the same one
        assert first == {org.id: by_url[ring.order(org.id)[0]] for org in orgs}
        assert set(first.values()) == set(servers)

        await servers["r2"].close()
        after = {org.id: await served(org.id) for org in orgs}
        for org in orgs:
            expected = first[org.id] if first[org.id] != "r2" else by_url[ring.order(org.id)[1]]
            assert after[org.id] == expected
    finally:
        await client.close()
        for server in servers.values():
            await server.close()
