"""`GET /internal/changes`: the content changes after a stream position, from the outbox, for a
part whose event stream lost them (libs/common/changes.py)."""

from __future__ import annotations

import asyncio

import aiohttp
import psycopg2
import pytest

from libs.common.db import create_pool, fetch_value, transaction
from libs.common.internal_token import HEADER, Caller, Organization, mint
from libs.contract.internal import CONTENT_CHANGES
from libs.contract.parts import CONTENT
from services.content.queries import outbox
from tests.content.api import Tenant


async def changes_of(content_service, document_id: str, count: int, after: int = 0) -> tuple[list[dict], dict]:
    """The document's changes after `after`, once the relay has placed `count` of them; and the whole answer."""
    for _ in range(100):
        status, body = await content_service.call("GET", f"{CONTENT_CHANGES.path}?after={after}", None)
        assert status == 200, body
        found = [change for change in body["changes"] if change["event"]["documentId"] == document_id]
        if len(found) >= count:
            return found, body
        await asyncio.sleep(0.05)
    raise AssertionError(f"expected {count} changes of {document_id}, saw {found}")


async def test_the_changes_after_a_position_are_the_outbox_events_in_position_order(content_service, tenant: Tenant):
    created = await tenant.create_page("changing", status="published")
    await tenant.call("PUT", f"/api/v1/content/{created['id']}", {"content": "new words"})
    await tenant.delete_pages(created["id"])
    changes, body = await changes_of(content_service, created["id"], 3)
    assert body["complete"] is True
    assert [change["event"]["type"] for change in changes] == [outbox.CREATED, outbox.CHANGED, outbox.DELETED]
    positions = [change["position"] for change in body["changes"]]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    first = changes[0]
    assert first["event"]["organizationId"] == tenant.org.id
    assert first["event"]["productId"] == tenant.product["id"]
    later, _ = await changes_of(content_service, created["id"], 2, after=first["position"])
    assert later == changes[1:]


async def test_a_page_is_at_most_the_limit_and_the_answer_says_when_pruned_changes_are_missing(
    stack, content_service, tenant: Tenant
):
    first = await tenant.create_page("one")
    await tenant.create_page("two")
    changes, _ = await changes_of(content_service, first["id"], 1)
    position = changes[0]["position"]
    status, body = await content_service.call("GET", f"{CONTENT_CHANGES.path}?after={position - 1}&limit=1", None)
    assert (status, [change["position"] for change in body["changes"]]) == (200, [position])
    try:
        set_pruned_through(stack, position)  # as pruning the first one would
        _, body = await content_service.call("GET", f"{CONTENT_CHANGES.path}?after={position - 1}", None)
        assert body["complete"] is False
        _, body = await content_service.call("GET", f"{CONTENT_CHANGES.path}?after={position}", None)
        assert body["complete"] is True
    finally:
        set_pruned_through(stack, 0)


def set_pruned_through(stack, position: int) -> None:
    with psycopg2.connect(stack.database.dsn(CONTENT)) as conn, conn.cursor() as cur:
        cur.execute("UPDATE outbox_relay SET pruned_through = %s", (position,))


async def test_a_bad_position_or_limit_is_refused(content_service):
    for query, field in (("", "after"), ("after=-1", "after"), ("after=x", "after"), ("after=0&limit=1001", "limit")):
        status, body = await content_service.call("GET", f"{CONTENT_CHANGES.path}?{query}", None)
        assert (status, list(body["details"])) == (422, [field])


async def test_only_a_part_on_its_own_behalf_may_list_every_organizations_changes(stack, tenant: Tenant):
    organization = Organization(tenant.org.id, tenant.org.slug, tenant.org.name)
    user = Caller("user", "someone", organization, frozenset({"content:read"}))
    url = stack.servers["content"].make_url(f"{CONTENT_CHANGES.path}?after=0")
    async with aiohttp.ClientSession() as session:
        async with session.get(url, headers={HEADER: mint(stack.environ["INTERNAL_TOKEN_SECRET"], user)}) as response:
            assert (response.status, (await response.json())["code"]) == (403, "FORBIDDEN")
        async with session.get(url) as response:
            assert response.status == 401


class _RolledBack(Exception):
    pass


async def test_pruning_remembers_the_highest_position_it_removed(stack, content_service, tenant: Tenant):
    created = await tenant.create_page("pruned")
    [change], _ = await changes_of(content_service, created["id"], 1)
    position = change["position"]
    async with create_pool(stack.database.dsn(CONTENT), CONTENT.schema, 1, 1) as pool:
        with pytest.raises(_RolledBack):  # the session's outbox is left as it was
            async with transaction(pool) as cur:
                await cur.execute(
                    "UPDATE outbox SET published_at = now() - interval '8 days' WHERE position <= %s", (position,)
                )
                await outbox.CONTENT_OUTBOX.prune_published(cur, 7)
                assert await fetch_value(cur, "SELECT pruned_through FROM outbox_relay") == position
                assert await fetch_value(cur, "SELECT count(*) FROM outbox WHERE position <= %s", (position,)) == 0
                rows, complete = await outbox.CONTENT_OUTBOX.changes_after(cur, position - 1, 10)
                assert complete is False
                assert position not in [row["position"] for row in rows]
                raise _RolledBack
