"""Batches of site pages named in any order, beside another writer of the same pages: a batch
takes its pages in id order before editing them in the order given, so it waits holding none
of them, where taking them as listed deadlocked (PostgreSQL aborts one writer after a second)."""

from __future__ import annotations

import asyncio

from libs.common.db import create_pool, transaction
from libs.contract.parts import CONTENT
from tests.conftest import Stack
from tests.content.api import Tenant
from tests.factories import waiting_on_a_lock


async def test_a_batch_naming_its_pages_out_of_order_waits_for_another_writer_and_ends(tenant: Tenant, stack: Stack):
    pages = [await tenant.create_page("one"), await tenant.create_page("two")]
    first, second = sorted(page["id"] for page in pages)
    async with create_pool(stack.database.dsn(CONTENT), CONTENT.schema, 2, 2) as pool:
        async with transaction(pool) as other:
            # Another writer of both pages, in id order: the first now, the second once the batch waits.
            await other.execute("SELECT FROM documents WHERE id = %s FOR UPDATE", (first,))
            batch = asyncio.create_task(tenant.update_pages({"id": second, "title": "B"}, {"id": first, "title": "A"}))
            await waiting_on_a_lock(pool)
            await other.execute("UPDATE documents SET description = 'edited beside' WHERE id = %s", (second,))
        answer = await asyncio.wait_for(batch, 10)
        deleting = asyncio.create_task(tenant.delete_pages(second, first))
        assert (await asyncio.wait_for(deleting, 10)).data["deletedCount"] == 2
    assert (answer.status, answer.data["updatedCount"], answer.data["failed"]) == (200, 2, [])
    assert sorted(page["title"] for page in answer.data["updated"]) == ["A", "B"]
