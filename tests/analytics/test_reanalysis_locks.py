"""Answers queued for a new analysis beside another writer of the same answers: the request takes
them in id order, so it waits holding none of them, where the order of its plan (the product's
index reads ids descending) took the others first, and two such writers deadlocked."""

from __future__ import annotations

import asyncio

import aiopg

from libs.common.db import cursor, fetch_value, transaction
from tests.analytics.conftest import Collector
from tests.factories import waiting_on_a_lock


async def test_a_reanalysis_waiting_for_another_writer_holds_none_of_the_answers(
    collector: Collector, analytics_pool: aiopg.Pool
):
    tenant = collector.tenant
    sent = [await collector.send(f"Acme and Globex, take {n}.") for n in range(4)]
    for answer in sent:
        await collector.analysed(answer["id"])
    sent_ids = sorted(answer["id"] for answer in sent)
    first, *others = sent_ids
    async with transaction(analytics_pool) as other:
        await other.execute("SELECT FROM answers WHERE id = %s FOR UPDATE", (first,))
        queued = asyncio.create_task(
            tenant.call("POST", "/api/v1/answers/reanalyse", json={"productId": tenant.product["id"]})
        )
        await waiting_on_a_lock(analytics_pool, "reanalyse = true")
        # While the request waits for the first answer, the others are free: this writer takes them at once.
        await other.execute("SELECT FROM answers WHERE id = ANY(%s::uuid[]) FOR UPDATE NOWAIT", (others,))
        await other.execute("UPDATE answers SET analysis_attempts = 0 WHERE id = ANY(%s::uuid[])", (others,))
    status, body = await asyncio.wait_for(queued, 10)
    assert (status, body["data"]["queued"]) == (202, 4)
    async with cursor(analytics_pool) as cur:
        marked = await fetch_value(
            cur, "SELECT count(*) FROM answers WHERE id = ANY(%s::uuid[]) AND reanalyse", (sent_ids,)
        )
    assert marked == 4
