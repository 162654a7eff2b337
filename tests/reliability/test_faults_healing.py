"""Faults that used to leave something behind, against a stack of its own (every part under
gunicorn, as `make run` starts it): a search worker killed with searches in flight, and Redis
restarted without its data while search, apps and the events part were behind on their events."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import aiohttp
import psycopg2
import psycopg2.extras
import pytest
from aiohttp import web

from libs.common.encoding import loads
from libs.contract import parts
from libs.contract.parts import APPS, EVENTS, SEARCH
from tests.reliability.conftest import PrivateStack
from tests.reliability.test_faults import found_by_search, marker, paragraph

pytestmark = pytest.mark.slow

# Search with two workers, as two replicas behind a Service: a search sent again after its worker
# died finds the other (a lone worker's replacement loads the model for longer than the timeout).
PARTS = tuple(replace(part, workers=2) if part is SEARCH else part for part in parts.PARTS)
IN_FLIGHT = 40
HEAL_SECONDS = 30.0


def query(stack: PrivateStack, sql: str, params: Any = None) -> list[dict]:
    """Rows of `sql` on the stack's database, as its owner (schema-qualified names; the identity
    schema on the path, as its triggers expect of a writer)."""
    with (
        psycopg2.connect(stack.environ["DATABASE_URL"], options="-c search_path=identity") as conn,
        conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cur,
    ):
        cur.execute(sql, params)
        return [dict(row) for row in cur.fetchall()] if cur.description else []


async def eventually(check: Callable[[], Any], seconds: float, what: str) -> None:
    """Wait until `check()` (awaited when it is a coroutine) is true, at most `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        assert time.monotonic() < deadline, f"not within {seconds:g}s: {what}"
        await asyncio.sleep(0.25)


def session(stack: PrivateStack) -> aiohttp.ClientSession:
    # A connection per request: one kept alive across a long wait may be closed by the gateway
    # just as it is reused, which would fail a check that has nothing to do with the fault.
    return aiohttp.ClientSession(
        headers={"x-api-key": stack.key},
        timeout=aiohttp.ClientTimeout(total=30),
        connector=aiohttp.TCPConnector(force_close=True),
    )


async def test_searches_in_flight_when_the_search_worker_is_killed_are_answered(private_stack: PrivateStack):
    url = f"{private_stack.gateway}/api/v1/content/search/{private_stack.organization_id}"
    body = {"query": "how do I publish a page", "nResults": 3}
    async with session(private_stack) as client:
        async with client.post(url, json=body) as response:
            assert response.status == 200  # warm: the model and the organization's rows are loaded

        async def search() -> tuple[int, str]:
            async with client.post(url, json=body) as response:
                return response.status, await response.text()

        searches = [asyncio.create_task(search()) for _ in range(IN_FLIGHT)]
        await asyncio.sleep(0.03)
        os.kill(private_stack.workers(SEARCH)[0], signal.SIGKILL)
        answers = await asyncio.gather(*searches)
    assert [status for status, _ in answers] == [200] * IN_FLIGHT, [text[:200] for _, text in answers]


async def create_page(client: aiohttp.ClientSession, stack: PrivateStack, word: str) -> str:
    page = {"slug": word, "title": "Healing page", "content": paragraph(word), "status": "published"}
    async with client.post(
        f"{stack.gateway}/api/v1/site/pages", json={"productId": stack.product_id, "pages": [page]}
    ) as response:
        assert response.status == 200, await response.text()
        return str((await response.json())["data"]["created"][0]["id"])


def all_published(stack: PrivateStack, outbox: str) -> bool:
    """Whether the relay has published every event of `outbox` (schema-qualified) to the stream."""
    return query(stack, f"SELECT count(*) AS n FROM {outbox} WHERE published_at IS NULL")[0]["n"] == 0


async def test_content_changes_reach_search_after_redis_came_back_empty(private_stack: PrivateStack):
    stack = private_stack
    words = {name: marker() for name in ("kept", "edited", "deleted", "new")}
    async with session(stack) as client:
        names = ("kept", "edited", "deleted")
        kept, edited, deleted = [await create_page(client, stack, words[name]) for name in names]
        for document_id, name in zip((kept, edited, deleted), names, strict=True):
            await eventually(partial(found_by_search, client, stack, document_id, words[name]), HEAL_SECONDS, name)
        stack.signal_workers(SEARCH, signal.SIGSTOP)  # indexing held back
        try:
            new = await create_page(client, stack, words["new"])
            edit = await client.put(f"{stack.gateway}/api/v1/content/{edited}", json={"content": paragraph("zqedit")})
            assert edit.status == 200
            removal = await client.delete(
                f"{stack.gateway}/api/v1/site/pages", json={"productId": stack.product_id, "pageIds": [deleted]}
            )
            assert removal.status == 200
            await eventually(lambda: all_published(stack, "content.outbox"), 10, "events relayed to the old stream")
            stack.restart_redis_empty()
        finally:
            stack.signal_workers(SEARCH, signal.SIGCONT)
        started = time.monotonic()
        await eventually(lambda: found_by_search(client, stack, new, words["new"]), HEAL_SECONDS, "new page found")
        await eventually(lambda: found_by_search(client, stack, edited, "zqedit"), HEAL_SECONDS, "edit found")

        async def deleted_gone() -> bool:
            return not await found_by_search(client, stack, deleted, words["deleted"])

        await eventually(deleted_gone, HEAL_SECONDS, "deleted page no longer found")
        assert await found_by_search(client, stack, kept, words["kept"])
        print(f"content changes lost with Redis reached search {time.monotonic() - started:.1f}s after it came back")


def apps_product(stack: PrivateStack, product_id: str) -> dict | None:
    rows = query(stack, "SELECT name, deleted_at FROM apps.products WHERE id = %s", (product_id,))
    return rows[0] if rows else None


async def test_product_changes_reach_apps_after_redis_came_back_empty(private_stack: PrivateStack):
    stack = private_stack
    organization = stack.organization_id
    insert = "INSERT INTO identity.products (organization_id, name, slug) VALUES (%s, %s, %s) RETURNING id"
    renamed, removed = (str(query(stack, insert, (organization, name, name))[0]["id"]) for name in ("old", "gone"))
    await eventually(lambda: apps_product(stack, removed), HEAL_SECONDS, "products known to apps")
    await eventually(lambda: apps_product(stack, renamed), HEAL_SECONDS, "products known to apps")
    stack.signal_workers(APPS, signal.SIGSTOP)  # apps held back
    try:
        added = str(query(stack, insert, (organization, "Added", "added"))[0]["id"])
        query(stack, "UPDATE identity.products SET name = 'Renamed' WHERE id = %s", (renamed,))
        query(stack, "UPDATE identity.products SET deleted_at = now() WHERE id = %s", (removed,))
        await eventually(lambda: all_published(stack, "identity.product_outbox"), 10, "events relayed")
        stack.restart_redis_empty()
    finally:
        stack.signal_workers(APPS, signal.SIGCONT)
    await eventually(lambda: apps_product(stack, added), HEAL_SECONDS, "added product known to apps")
    await eventually(lambda: apps_product(stack, renamed)["name"] == "Renamed", HEAL_SECONDS, "rename applied")
    await eventually(lambda: apps_product(stack, removed)["deleted_at"] is not None, HEAL_SECONDS, "deletion applied")


class Receiver:
    """A webhook receiver on loopback, recording each delivery's event id, type and resource id."""

    def __init__(self) -> None:
        self.received: list[tuple[str, str, str]] = []
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        payload = loads(await request.read())
        self.received.append((request.headers["webhook-id"], payload["type"], str(payload["data"].get("id"))))
        return web.Response(status=204)

    async def __aenter__(self) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook", self.handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/hook"
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.runner is not None
        await self.runner.cleanup()

    def resources(self, event_type: str) -> set[str]:
        return {resource for _, kind, resource in self.received if kind == event_type}


async def create_app(client: aiohttp.ClientSession, stack: PrivateStack, name: str) -> str:
    async with client.post(f"{stack.gateway}/api/v1/apps", json={"name": name}) as response:
        assert response.status == 201, await response.text()
        return str((await response.json())["data"]["id"])


def events_progress(stack: PrivateStack) -> set[str]:
    return {row["consumer"] for row in query(stack, "SELECT consumer FROM events.event_progress")}


async def test_webhook_events_reach_their_receiver_after_redis_came_back_empty(private_stack: PrivateStack):
    stack = private_stack
    async with session(stack) as client, Receiver() as receiver:
        async with client.post(
            f"{stack.gateway}/api/v1/webhook-endpoints", json={"url": receiver.url, "events": ["*"]}
        ) as response:
            assert response.status == 201, await response.text()
        first = await create_app(client, stack, "Before the loss")
        await eventually(lambda: first in receiver.resources("app.created"), HEAL_SECONDS, "a delivery before")
        # The events part knows how far it has taken every source (the mark the catch-up reads from).
        await eventually(lambda: {"webhooks:content", "webhooks:apps"} <= events_progress(stack), HEAL_SECONDS, "marks")
        stack.signal_workers(EVENTS, signal.SIGSTOP)  # the events part held back
        try:
            apps = {await create_app(client, stack, f"Made before the loss {index}") for index in range(5)}
            pages = {await create_page(client, stack, marker()) for _ in range(3)}
            await eventually(lambda: all_published(stack, "apps.webhook_outbox"), 10, "app events relayed")
            await eventually(lambda: all_published(stack, "content.webhook_outbox"), 10, "content events relayed")
            stack.restart_redis_empty()
        finally:
            stack.signal_workers(EVENTS, signal.SIGCONT)
        started = time.monotonic()
        await eventually(lambda: apps <= receiver.resources("app.created"), HEAL_SECONDS, "app events delivered")
        await eventually(
            lambda: pages <= receiver.resources("content.document.created"), HEAL_SECONDS, "content events delivered"
        )
        ids = [event_id for event_id, _, resource in receiver.received if resource in apps | pages]
        assert len(ids) == len(set(ids)), "an event delivered twice"
        print(f"webhook events lost with Redis were delivered {time.monotonic() - started:.1f}s after it came back")
