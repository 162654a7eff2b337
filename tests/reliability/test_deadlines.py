"""A PostgreSQL that stops answering while the gateway checks a write: the gateway's own database
work before the upstream call (the fresh product lookup; for a keyed write, the look for its key in
PostgreSQL while Redis is not trusted with a key's absence) is inside the route's deadline, so the
client gets a 504 by the route's timeout rather than waiting out the freeze. The gateway's database
is reached through a proxy the test freezes."""

from __future__ import annotations

import asyncio
import time
import uuid

from gateway.edge.idempotency import COMPLETE_SINCE
from gateway.edge.route_table import ROUTES
from libs.common.state import REDIS, SETTINGS
from libs.contract.parts import GATEWAY
from tests.reliability.freezer import Freezer

SITE_PAGES = "/api/v1/site/pages"
TIMEOUT = next(route.timeout for route in ROUTES if route.name == "site_pages_create")
# What the gateway may take beyond the route's timeout to answer (an event-loop turn, the envelope).
SLACK_SECONDS = 1.5


def page(slug: str) -> dict:
    return {"slug": slug, "title": "Deadline", "content": "A page written while the database froze."}


async def test_writes_answer_504_by_their_deadline_while_the_gateways_database_is_frozen(stack, identity):
    org = await identity.organization()
    product = await identity.product(org)
    key = await identity.api_key(org)
    dsn = stack.database.dsn(GATEWAY)
    async with Freezer.of_postgres(dsn) as freezer:
        gateway = await stack.start_gateway({"DATABASE_URL": freezer.postgres_dsn(dsn)})
        try:
            headers = {"x-api-key": key}
            warm = await gateway.get("/api/v1/products", headers=headers)  # the key and organization cached
            assert warm.status == 200, await warm.text()
            # As after a Redis restarted empty: a keyed write looks for its key in PostgreSQL too.
            app = gateway.server.app
            await app[REDIS].delete(app[SETTINGS].redis_prefix + COMPLETE_SINCE)

            async def write(path: str, body: dict, keyed: bool) -> tuple[int, str, float]:
                sent = {**headers, **({"Idempotency-Key": uuid.uuid4().hex} if keyed else {})}
                started = time.monotonic()
                response = await gateway.post(path, json=body, headers=sent)
                return response.status, await response.text(), time.monotonic() - started

            freezer.freeze()
            try:
                answers = await asyncio.gather(
                    write(SITE_PAGES, {"productId": product["id"], "pages": [page("plain")]}, keyed=False),
                    write(SITE_PAGES, {"productId": product["id"], "pages": [page("keyed")]}, keyed=True),
                    write("/api/v1/apps", {"name": "Keyed app"}, keyed=True),
                )
            finally:
                freezer.thaw()
            for status, text, took in answers:
                assert status == 504, text
                assert '"UPSTREAM_TIMEOUT"' in text
                assert took < TIMEOUT + SLACK_SECONDS, took
            after = await gateway.post(
                SITE_PAGES, json={"productId": product["id"], "pages": [page("after")]}, headers=headers
            )
            assert after.status == 200, await after.text()
        finally:
            await gateway.close()
