"""POST /api/v1/analytics/events through the gateway: what is stored, refused, dropped, counted once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.traffic.support import BROWSER_UA, Tenant, event


async def stored(tenant: Tenant) -> list[dict]:
    """What the organization's logs hold, in id order."""
    status, body = await tenant.get("/api/v1/ai-traffic/logs", limit="200")
    assert status == 200
    items = sorted(body["data"]["items"], key=lambda item: item["id"])
    return [
        {
            "id": i["id"],
            "host": i["host"],
            "network": i["clientNetwork"],
            "bot_id": i["botId"],
            "kind": i["kind"],
            "source": i["source"],
        }
        for i in items
    ]


async def test_an_agents_request_is_stored_with_its_app_and_truncated_address(tenant: Tenant):
    sent = event(tenant.host, id="evt-1", ip="20.171.207.77")
    status, body = await tenant.send([sent])
    assert (status, body["data"]) == (200, {"accepted": 1, "duplicates": 0, "dropped": 0, "rejected": []})
    rows = await stored(tenant)
    assert rows == [
        {
            "id": "evt-1",
            "host": tenant.host,
            "network": "20.171.207.0/24",
            "bot_id": "gptbot",
            "kind": "agent",
            "source": "ingest",
        }
    ]


async def test_a_batch_sent_twice_counts_nothing_twice(tenant: Tenant):
    batch = [event(tenant.host), event(tenant.host), event(tenant.host)]
    assert (await tenant.send(batch))[1]["data"]["accepted"] == 3
    status, body = await tenant.send([*batch, batch[0]])
    assert (status, body["data"]) == (200, {"accepted": 0, "duplicates": 4, "dropped": 0, "rejected": []})
    assert len(await stored(tenant)) == 3


async def test_bad_events_are_refused_alone_never_the_batch(tenant: Tenant, other_tenant: Tenant):
    now = datetime.now(UTC)
    batch = [
        event(tenant.host, id="good"),
        event("unknown.example.org"),
        event(other_tenant.host),  # another organization's App
        event(tenant.host, occurredAt=(now - timedelta(days=8)).isoformat()),
        event(tenant.host, occurredAt=(now + timedelta(minutes=10)).isoformat()),
        event(tenant.host, ip="not-an-address"),
        event(tenant.host, status=99),
        "not an object",
        event(tenant.host, userAgent="GPTBot\x00"),
    ]
    status, body = await tenant.send(batch)
    assert status == 200
    assert body["data"]["accepted"] == 1
    assert [(r["index"], r["message"]) for r in body["data"]["rejected"]] == [
        (1, "host unknown.example.org is not a domain of the organization's Apps"),
        (2, f"host {other_tenant.host} is not a domain of the organization's Apps"),
        (3, "occurredAt is more than 7 days old"),
        (4, "occurredAt is more than 5 minutes ahead"),
        (5, "ip: Not an IPv4 or IPv6 address."),
        (6, "status: Must be greater than or equal to 100 and less than or equal to 599."),
        (7, "an event is a JSON object"),
        (8, "userAgent: Must not contain NUL characters."),
    ]
    assert [row["id"] for row in await stored(tenant)] == ["good"]
    assert await stored(other_tenant) == []


async def test_humans_are_dropped_unless_an_answer_engine_referred_them(tenant: Tenant):
    human = event(tenant.host, userAgent=BROWSER_UA, referer="https://www.google.com/")
    referred = event(tenant.host, id="referred", userAgent=BROWSER_UA, referer="https://chatgpt.com/c/abc")
    status, body = await tenant.send([human, referred])
    assert (status, body["data"]) == (200, {"accepted": 1, "duplicates": 0, "dropped": 1, "rejected": []})
    assert [(r["id"], r["kind"]) for r in await stored(tenant)] == [("referred", "referral")]


async def test_ndjson_is_taken_as_a_batch(tenant: Tenant):
    lines = b"\n".join(__import__("orjson").dumps(event(tenant.host)) for _ in range(3)) + b"\n"
    status, body = await tenant.send(lines, "application/x-ndjson")
    assert (status, body["data"]["accepted"]) == (200, 3)


async def test_a_malformed_body_is_a_422_for_the_whole_call(tenant: Tenant):
    for body, content_type, message in [
        (b"{not json", "application/json", "the body is not valid JSON"),
        (b'{"id": "x"}', "application/json", "the body must be a JSON array of events (or NDJSON)"),
        (b"[]", "application/json", "the batch holds no event"),
        (b'{"id": 1}\n{oops\n', "application/x-ndjson", "line 2 is not valid JSON"),
    ]:
        status, answer = await tenant.send(body, content_type)
        assert (status, answer["code"], answer["message"]) == (422, "VALIDATION_FAILED", message)
    assert await stored(tenant) == []


async def test_more_than_a_thousand_events_is_a_422(tenant: Tenant):
    status, body = await tenant.send([event(tenant.host) for _ in range(1001)])
    assert (status, body["message"]) == (422, "a batch holds at most 1000 events, this one 1001")


async def test_a_body_over_one_mebibyte_is_a_413(tenant: Tenant):
    status, body = await tenant.send([event(tenant.host, path="/" + "a" * 4000) for _ in range(300)])
    assert (status, body["code"]) == (413, "PAYLOAD_TOO_LARGE")


async def test_ingest_needs_the_analytics_write_scope(tenant: Tenant, identity):
    key = await identity.api_key(tenant.org, frozenset({"analytics:read", "logs:read"}))
    async with tenant.api.gateway.post(
        "/api/v1/analytics/events", json=[event(tenant.host)], headers={"x-api-key": key}
    ) as response:
        body = await response.json()
    assert (response.status, body["details"]) == (403, {"requiredScope": "analytics:write"})
