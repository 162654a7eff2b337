"""GET /api/v1/ai-traffic/logs through the gateway: newest first by cursor, filtered, one organization's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.traffic.support import BROWSER_UA, TESTBOT_UA, Tenant, event

LOGS = "/api/v1/ai-traffic/logs"


def at(minutes_ago: int) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes_ago)).isoformat()


async def ids(tenant: Tenant, **query: str) -> list[str]:
    status, body = await tenant.get(LOGS, **query)
    assert status == 200, body
    return [item["id"] for item in body["data"]["items"]]


async def test_pages_run_newest_first_by_cursor(tenant: Tenant):
    await tenant.send([event(tenant.host, id=f"e{n}", occurredAt=at(n)) for n in range(5)])
    seen, cursor = [], None
    while True:
        query = {"limit": "2", **({"cursor": cursor} if cursor else {})}
        status, body = await tenant.get(LOGS, **query)
        assert status == 200
        seen += [item["id"] for item in body["data"]["items"]]
        cursor = body["data"]["nextCursor"]
        if cursor is None:
            break
    assert seen == ["e0", "e1", "e2", "e3", "e4"]


async def test_an_entry_says_what_was_recorded(tenant: Tenant):
    sent = event(tenant.host, id="one", path="/docs/a.md", status=404, ip="20.171.206.200", referer=None)
    await tenant.send([sent])
    status, body = await tenant.get(LOGS)
    entry = body["data"]["items"][0]
    assert status == 200
    assert {k: v for k, v in entry.items() if k not in ("occurredAt", "receivedAt")} == {
        "id": "one",
        "source": "ingest",
        "appId": tenant.app_id,
        "domainId": entry["domainId"],
        "host": tenant.host,
        "path": "/docs/a.md",
        "method": "GET",
        "status": 404,
        "userAgent": sent["userAgent"],
        "clientNetwork": "20.171.206.0/24",
        "referer": None,
        "bytes": 1200,
        "durationMs": 12.5,
        "kind": "agent",
        "botId": "gptbot",
        "claimedBotId": "gptbot",
        "operator": "OpenAI",
        "category": "training",
        "verified": True,
        "matchedBy": "ip",
        "spoofed": False,
        "referralPlatform": None,
    }
    assert datetime.fromisoformat(entry["occurredAt"]) == datetime.fromisoformat(sent["occurredAt"])


async def test_filters_narrow_the_list(tenant: Tenant):
    await tenant.send(
        [
            event(tenant.host, id="gpt-ok", occurredAt=at(30)),
            event(tenant.host, id="gpt-500", status=503, path="/docs/x", occurredAt=at(20)),
            event(tenant.host, id="test-ip", userAgent=TESTBOT_UA, ip="198.51.100.1", occurredAt=at(10)),
            event(
                tenant.host, id="referral", userAgent=BROWSER_UA, referer="https://perplexity.ai/s", occurredAt=at(5)
            ),
        ]
    )
    assert await ids(tenant, botId="gptbot") == ["gpt-500", "gpt-ok"]
    assert await ids(tenant, statusClass="5xx") == ["gpt-500"]
    assert await ids(tenant, pathPrefix="/docs/") == ["gpt-500"]
    assert await ids(tenant, verified="true") == ["test-ip", "gpt-500", "gpt-ok"]
    assert await ids(tenant, verified="false") == ["referral"]
    assert await ids(tenant, category="search") == ["test-ip"]
    assert await ids(tenant, appId=tenant.app_id, host=tenant.host, **{"from": at(25), "to": at(7)}) == [
        "test-ip",
        "gpt-500",
    ]


async def test_an_organization_never_sees_another_ones_events(tenant: Tenant, other_tenant: Tenant):
    await tenant.send([event(tenant.host, id="mine")])
    await other_tenant.send([event(other_tenant.host, id="theirs")])
    assert await ids(tenant) == ["mine"]
    assert await ids(other_tenant) == ["theirs"]
    assert await ids(tenant, appId=other_tenant.app_id) == []


async def test_bad_filters_are_a_422_with_the_field(tenant: Tenant):
    status, body = await tenant.get(LOGS, statusClass="6xx", cursor="nope", limit="0")
    assert status == 422
    assert set(body["details"]) == {"statusClass", "cursor", "limit"}


async def test_logs_need_the_logs_read_scope(tenant: Tenant, identity):
    key = await identity.api_key(tenant.org, frozenset({"analytics:read"}))
    async with tenant.api.gateway.get(LOGS, headers={"x-api-key": key}) as response:
        body = await response.json()
    assert (response.status, body["details"]) == (403, {"requiredScope": "logs:read"})
