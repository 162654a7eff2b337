"""First-party capture: requests the App edge appends to its stream are recorded as ingested ones."""

from __future__ import annotations

from datetime import UTC, datetime

from libs.common.events import edge_requests_stream
from libs.common.redis_client import create_redis
from tests.conftest import REDIS_URL, Stack
from tests.factories import eventually
from tests.traffic.support import GPTBOT_UA, Tenant

LOGS = "/api/v1/ai-traffic/logs"


def edge_entry(tenant: Tenant, domain_id: str, **fields: str) -> dict[str, str]:
    return {
        "occurredAt": datetime.now(UTC).isoformat(),
        "host": tenant.host,
        "path": "/llms-full.txt",
        "method": "GET",
        "status": "200",
        "userAgent": GPTBOT_UA,
        "ip": "20.171.206.9",
        "referer": "",
        "bytes": "5120",
        "durationMs": "3.5",
        "signature": "",
        "signatureInput": "",
        "signatureAgent": "",
        "organizationId": tenant.org.id,
        "appId": tenant.app_id,
        "domainId": domain_id,
        **fields,
    }


async def test_a_request_the_edge_answered_is_recorded(stack: Stack, tenant: Tenant):
    domain_id = "8f0e4b9c-3f6a-4d53-9a3e-2a1c5b7d9e01"
    redis = create_redis(REDIS_URL)
    stream = edge_requests_stream(stack.environ["REDIS_PREFIX"])
    try:
        await redis.xadd(stream, {"host": "broken"})  # malformed: skipped, never blocks what follows
        entry_id = (await redis.xadd(stream, edge_entry(tenant, domain_id))).decode()
        found: list[dict] = []

        async def recorded() -> bool:
            status, body = await tenant.get(LOGS)
            found[:] = body["data"]["items"]
            return bool(found)

        await eventually(recorded)
        assert len(found) == 1
        assert {k: found[0][k] for k in ("id", "source", "domainId", "path", "bytes", "botId", "clientNetwork")} == {
            "id": f"edge-{entry_id}",
            "source": "edge",
            "domainId": domain_id,
            "path": "/llms-full.txt",
            "bytes": 5120,
            "botId": "gptbot",
            "clientNetwork": "20.171.206.0/24",
        }

        async def acknowledged() -> bool:
            groups = await redis.xinfo_groups(stream)
            return all(group["pending"] == 0 and group["lag"] == 0 for group in groups)

        await eventually(acknowledged)
    finally:
        await redis.aclose()
