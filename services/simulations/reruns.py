"""Re-running tasks when what an App publishes changes. A task with `rerunOnChange` runs again
when a document its App routes changes, or when the App's routes change (a route added,
changed or deleted: the routes decide which documents the App publishes, and where).

The simulations part reads two streams, each as a consumer group of its own (`simulations`, from
new events on), and never another part's tables:
- the content stream (`events:content`): for each organization whose documents changed, it asks
  the apps part which of the Apps its re-run tasks visit route one of those documents (`GET
  /internal/edge/apps/{appId}/site`, the App's routes and their targets);
- the apps part's webhook stream (`events:webhooks:apps`): an `app.route.*` event names its App.
It then queues one run of every environment of the re-run tasks visiting those Apps, unless one
such run is still waiting, whichever of the two queued it: a burst of edits costs one run, taken
once the burst is read. A change no App of a re-run task sees queues nothing."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

import aiopg
import redis.asyncio as aioredis

from libs.common.clients import EdgeAppsClient
from libs.common.db import cursor, fetch_all, transaction
from libs.common.encoding import loads
from libs.common.errors import NotFound, ValidationFailed
from libs.common.internal_token import Organization, service_caller
from libs.common.stream_consumer import Entry, StreamConsumer
from services.simulations import queue
from services.simulations.assignments import assignment_for

log = logging.getLogger(__name__)

GROUP = "simulations"
# One trigger for both streams: a re-run waiting after a document changed also covers a route
# change that follows, and the other way round.
TRIGGER = "content_change"
# What changes what agents read; a created document is a draft until published.
DOCUMENT_CHANGES = frozenset({"content.changed", "content.published", "content.unpublished", "content.deleted"})
ROUTE_CHANGES = frozenset({"app.route.created", "app.route.updated", "app.route.deleted"})


async def watched_apps(cur: Any, organization_id: str) -> list[str]:
    """The Apps the organization's re-run tasks visit."""
    rows = await fetch_all(
        cur,
        "SELECT DISTINCT app_id::text FROM tasks"
        " WHERE organization_id = %s AND rerun_on_change AND deleted_at IS NULL AND app_id IS NOT NULL",
        (organization_id,),
    )
    return [row["app_id"] for row in rows]


async def rerun(pool: aiopg.Pool, organization_id: str, app_ids: list[str]) -> int:
    """Queue a re-run of each environment of the organization's re-run tasks visiting `app_ids`,
    unless one is waiting already; how many were queued."""
    queued = 0
    async with transaction(pool) as cur:
        # The tasks first (shared: the runs queued refer to them), then their environments: the
        # order a task's deletion locks them, so the two never wait on each other in a circle.
        await cur.execute(
            "SELECT FROM tasks WHERE organization_id = %s AND rerun_on_change AND deleted_at IS NULL"
            " AND app_id = ANY(%s::uuid[]) ORDER BY id FOR KEY SHARE",
            (organization_id, app_ids),
        )
        environments = await fetch_all(
            cur,
            "SELECT e.id::text FROM environments e JOIN tasks t ON t.id = e.task_id"
            " WHERE t.organization_id = %s AND t.rerun_on_change AND t.deleted_at IS NULL AND e.deleted_at IS NULL"
            " AND t.app_id = ANY(%s::uuid[])"
            " ORDER BY e.created_at, e.id FOR UPDATE OF e",
            (organization_id, app_ids),
        )
        # Asked once the environments are locked, by a statement of its own: it sees the re-run
        # another consumer queued while this one waited for the lock (a single statement would
        # judge by the snapshot it started with, and queue a second).
        waiting = await fetch_all(
            cur,
            "SELECT DISTINCT environment_id::text FROM runs"
            " WHERE environment_id = ANY(%s::uuid[]) AND status = 'queued' AND trigger = %s",
            ([row["id"] for row in environments], TRIGGER),
        )
        skipped = {row["environment_id"] for row in waiting}
        for row in environments:
            if row["id"] in skipped:
                continue
            try:
                environment, assignment = await assignment_for(cur, organization_id, row["id"])
            except ValidationFailed as refused:
                log.warning("environment %s cannot re-run: %s", row["id"], refused.details)
                continue
            queued += len(await queue.enqueue(cur, organization_id, environment, assignment, 1, TRIGGER))
    return queued


class Changes(StreamConsumer):
    """Reads a stream as the simulations group and queues the re-runs its events call for; a
    subclass says what an event changed and which watched Apps that touches."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool) -> None:
        # "$": only changes from now on; what happened before the part first read the stream is past.
        super().__init__(redis, stream, GROUP, start="$")
        self._pool = pool

    @abstractmethod
    def changed(self, event: dict[str, Any]) -> str | None:
        """What the event says changed (a document, an App), or None when nothing agents read.
        A malformed event raises KeyError, TypeError or ValueError."""

    @abstractmethod
    async def apps_changed(self, organization_id: str, watched: list[str], changed: set[str]) -> list[str]:
        """Those of the `watched` Apps that the `changed` things touch."""

    async def handle(self, entries: Iterable[Entry]) -> None:
        # organization -> (what changed, the entries that said so)
        by_organization: dict[str, tuple[set[str], list[bytes]]] = {}
        passed: list[bytes] = []
        for entry_id, fields in entries:
            try:
                event = loads(fields[b"event"])
                organization_id, changed = str(event["organizationId"]), self.changed(event)
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed event %r of %s", entry_id, self._stream)
                passed.append(entry_id)
                continue
            if changed is None:
                passed.append(entry_id)
                continue
            things, entry_ids = by_organization.setdefault(organization_id, (set(), []))
            things.add(changed)
            entry_ids.append(entry_id)
        if passed:
            await self.ack(*passed)
        for organization_id, (things, entry_ids) in by_organization.items():
            async with cursor(self._pool) as cur:
                watched = await watched_apps(cur, organization_id)
            apps = await self.apps_changed(organization_id, watched, things) if watched else []
            if apps:
                await rerun(self._pool, organization_id, apps)
            await self.ack(*entry_ids)


class DocumentChanges(Changes):
    """Content events: the documents changed; the Apps routing one of them changed with them."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool, apps: EdgeAppsClient) -> None:
        super().__init__(redis, stream, pool)
        self._apps = apps

    def changed(self, event: dict[str, Any]) -> str | None:
        return str(event["documentId"]) if event["type"] in DOCUMENT_CHANGES else None

    async def apps_changed(self, organization_id: str, watched: list[str], changed: set[str]) -> list[str]:
        """Those of `watched` that route one of the `changed` documents (a deleted App routes nothing)."""
        caller = service_caller(GROUP, Organization(organization_id, "", ""), "content-change")
        routing = []
        for app_id in watched:
            try:
                site = await self._apps.site(caller, app_id)
            except NotFound:
                continue
            if any(target in changed for _, target in site["routes"]):
                routing.append(app_id)
        return routing


class RouteChanges(Changes):
    """The apps part's webhook events (`{id, type, occurredAt, organizationId, resourceKey, data}`):
    a route's event names its App in `data.appId`; the part's other events change no route."""

    def changed(self, event: dict[str, Any]) -> str | None:
        return str(event["data"]["appId"]) if event["type"] in ROUTE_CHANGES else None

    async def apps_changed(self, organization_id: str, watched: list[str], changed: set[str]) -> list[str]:
        return [app_id for app_id in watched if app_id in changed]
