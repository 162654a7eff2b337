"""The metrics on-call alerts on, each produced by the condition it names."""

from __future__ import annotations

import re
import secrets
import uuid
from datetime import UTC, datetime, timedelta

from aiohttp import web
from aiohttp.test_utils import TestServer

from gateway.state import LIMITER
from libs.common.db import create_pool, cursor
from libs.common.encoding import dumps
from libs.common.http_client import internal_client
from libs.common.redis_client import create_redis
from libs.contract.parts import CONTENT
from libs.local.ports import free_port
from services.content.app import measure_backlog
from services.search.indexer import EventConsumer
from tests.conftest import REDIS_URL, metrics_text
from tests.factories import IdentityFactory

RUNS = "/api/v1/agent-simulation/runs"


def sample(name: str, **labels: str) -> float:
    """The value of one sample in the exposition (0 when absent)."""
    for line in metrics_text().splitlines():
        series, _, value = line.rpartition(" ")
        if not series.startswith(name):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', series))
        if series.partition("{")[0] == name and all(found.get(k) == v for k, v in labels.items()):
            return float(value)
    return 0.0


async def test_upstream_failures_are_counted_by_route_upstream_and_kind(stack, identity: IdentityFactory):
    refused = f"127.0.0.1:{free_port()}"

    async def unavailable(request: web.Request) -> web.Response:
        return web.json_response({"code": "SERVICE_UNAVAILABLE", "message": "not ready"}, status=503)

    not_ready = web.Application()
    not_ready.router.add_get(RUNS, unavailable)
    server = TestServer(not_ready)
    await server.start_server()
    failing = f"{server.host}:{server.port}"
    client = await stack.start_gateway({"SIMULATIONS_URL": f"http://{refused}"})
    try:
        org = await identity.organization()
        headers = {"x-api-key": await identity.api_key(org)}
        before = sample("upstream_failures_total", route=RUNS, upstream=refused, kind="refused")
        assert (await client.get(RUNS, headers=headers)).status == 502
        assert sample("upstream_failures_total", route=RUNS, upstream=refused, kind="refused") == before + 1
        # A part answering 503 is "not ready"; a call outside any request is counted as background work.
        async with internal_client("s" * 48) as internal:
            await internal.send("GET", f"http://{failing}{RUNS}")
        assert sample("upstream_failures_total", route="background", upstream=failing, kind="not_ready") == 1
    finally:
        await client.close()
        await server.close()


async def test_the_outbox_backlog_and_its_age_are_measured(database):
    async with create_pool(database.dsn(CONTENT), CONTENT.schema, 0, 2) as pool:
        async with cursor(pool) as cur:
            await cur.execute(
                "INSERT INTO outbox (type, organization_id, product_id, document_id, occurred_at)"
                " VALUES ('content.changed', %s, %s, %s, now() - interval '2 minutes') RETURNING seq",
                (str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())),
            )
            seq = (await cur.fetchone())["seq"]
        try:
            await measure_backlog(pool)
            assert sample("content_outbox_backlog") >= 1
            assert sample("content_outbox_oldest_age_seconds") >= 120
        finally:
            async with cursor(pool) as cur:
                await cur.execute("DELETE FROM outbox WHERE seq = %s", (seq,))
        await measure_backlog(pool)
        assert sample("content_outbox_oldest_age_seconds") < 120


async def test_indexing_lag_counts_unread_and_unacknowledged_events_and_the_oldest_age():
    redis = create_redis(REDIS_URL)
    stream = f"test-lag-{uuid.uuid4().hex}"
    consumer = EventConsumer(redis, stream, indexer=None, group="lag")  # type: ignore[arg-type]
    try:
        await consumer.measure_lag()
        assert (sample("search_indexing_pending_events"), sample("search_indexing_oldest_pending_age_seconds")) == (
            0,
            0,
        )
        for minutes in (5, 1):
            occurred = (datetime.now(UTC) - timedelta(minutes=minutes)).isoformat()
            await redis.xadd(stream, {"event": dumps({"documentId": "d", "occurredAt": occurred})})
        await consumer.measure_lag()
        assert sample("search_indexing_pending_events") == 2
        assert 300 <= sample("search_indexing_oldest_pending_age_seconds") < 330
        await redis.xreadgroup("lag", "reader", {stream: ">"}, count=1)  # read, not yet acknowledged
        await consumer.measure_lag()
        assert sample("search_indexing_pending_events") == 2
        assert sample("search_indexing_oldest_pending_age_seconds") >= 300
    finally:
        await redis.delete(stream)
        await redis.aclose()


async def test_key_cache_hits_and_misses_are_counted(gateway, identity: IdentityFactory):
    org = await identity.organization()
    key, unknown = await identity.api_key(org), f"avk_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"
    counts = {result: sample("gateway_key_cache_lookups_total", result=result) for result in ("hit", "miss")}
    negative = sample("gateway_key_cache_lookups_total", result="negative_hit")
    for credential in (key, key, unknown, unknown):
        await gateway.get(RUNS, headers={"x-api-key": credential})
    assert sample("gateway_key_cache_lookups_total", result="miss") == counts["miss"] + 2
    assert sample("gateway_key_cache_lookups_total", result="hit") == counts["hit"] + 1
    assert sample("gateway_key_cache_lookups_total", result="negative_hit") == negative + 1


async def test_redis_errors_are_counted(stack, identity: IdentityFactory):
    client = await stack.start_gateway({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"})
    try:
        before = sample("redis_errors_total", operation="ratelimit_sync")
        org = await identity.organization()
        assert (await client.get(RUNS, headers={"x-api-key": await identity.api_key(org)})).status == 200
        await client.app[LIMITER].sync()
        # At least this sync's failure: the gateway's own periodic sync may fail meanwhile too.
        assert sample("redis_errors_total", operation="ratelimit_sync") >= before + 1
    finally:
        await client.close()
