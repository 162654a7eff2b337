"""What the apps service knows of products: a copy kept from the gateway's product events.

Product events (docs/architecture.md, "Events") carry the product's state and a version; the
apps replicas read them as one consumer group and store each product at its newest version, so
a replay, a duplicate or events out of order all end in the same state.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import aiopg
import redis.asyncio as aioredis
from aiohttp import web

from libs.common.catch_up import NotApplied
from libs.common.db import transaction
from libs.common.encoding import loads
from libs.common.state import caller_of
from libs.common.stream_consumer import Entry, StreamConsumer
from services.apps.queries import products as queries

log = logging.getLogger(__name__)

GROUP = "apps-products"


ProductEvent = tuple[str, dict[str, Any], int]


def parse_event(fields: dict[bytes, bytes]) -> ProductEvent:
    """The organization, product state and version a stream entry's event carries."""
    return product_event(loads(fields[b"event"]))


def product_event(event: dict[str, Any]) -> ProductEvent:
    """The organization, product state and version an event carries."""
    product = event["product"]
    state = {key: product[key] for key in ("id", "name", "slug", "deletedAt")}
    return str(event["organizationId"]), state, int(event["version"])


class ProductConsumer(StreamConsumer):
    """Applies product events to `apps.products`, then acknowledges them."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool, *, group: str = GROUP) -> None:
        super().__init__(redis, stream, group)
        self._pool = pool

    async def handle(self, entries: Iterable[Entry]) -> None:
        """Apply the batch in one transaction; on failure nothing is acknowledged and the batch
        is read again later."""
        events: list[ProductEvent] = []
        applied: list[bytes] = []
        for entry_id, fields in entries:
            try:
                events.append(parse_event(fields))
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed product event %r", entry_id)
                await self.ack(entry_id)
                continue
            applied.append(entry_id)
        if applied and await self._apply(events):
            await self.ack(*applied)

    async def apply_events(self, events: list[dict[str, Any]]) -> None:
        """Apply product events read from the gateway when the stream lost them
        (libs/common/catch_up.py); raise when they could not be."""
        if not await self._apply([product_event(event) for event in events]):
            raise NotApplied(f"{len(events)} product events")

    async def _apply(self, events: list[ProductEvent]) -> bool:
        """Apply the events in one transaction; whether it committed (a failure is logged). They are
        applied by product id (the newest version wins in any order), so two replicas applying
        the same products lock them in the same order."""
        try:
            async with transaction(self._pool) as cur:
                for organization_id, product, version in sorted(events, key=lambda event: (event[1]["id"], event[2])):
                    await queries.apply_event(cur, organization_id, product, version)
        except Exception:
            log.exception("applying %d product events failed; they stay pending", len(events))
            return False
        return True


async def products_by_id(request: web.Request, cur: Any, ids: list[str]) -> queries.Lookup:
    """The live products of the caller's organization among `ids`, as `{id, name, slug}`, by id.

    A product the gateway checked for this request is known at once, even before its event.
    """
    caller = caller_of(request)
    if caller.product is not None:
        await queries.learn_checked(cur, caller.org.id, caller.product)
    return await queries.live_products(cur, caller.org.id, ids)
