"""Re-running tasks when content changes: the simulations part reads the content stream as a
consumer group of its own. For each organization whose documents changed, it asks the apps part
which of the Apps its re-run tasks visit route one of those documents (`GET /internal/edge/apps/
{appId}/site`, the App's routes and their targets), and queues one run of every environment of
the tasks (`rerunOnChange`) visiting those Apps, unless one such run is still waiting: a burst of
edits costs one run, taken once the burst is read. A change to a document no App of a task routes
queues nothing."""

from __future__ import annotations

import logging
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
TRIGGER = "content_change"
# What changes what agents read; a created document is a draft until published.
CHANGES = frozenset({"content.changed", "content.published", "content.unpublished", "content.deleted"})


async def watched_apps(cur: Any, organization_id: str) -> list[str]:
    """The Apps the organization's re-run tasks visit."""
    rows = await fetch_all(
        cur,
        "SELECT DISTINCT app_id::text FROM tasks"
        " WHERE organization_id = %s AND rerun_on_change AND deleted_at IS NULL AND app_id IS NOT NULL",
        (organization_id,),
    )
    return [row["app_id"] for row in rows]


async def apps_routing(
    apps: EdgeAppsClient, organization_id: str, app_ids: list[str], documents: set[str]
) -> list[str]:
    """Those of `app_ids` that route one of `documents` (a deleted App routes nothing)."""
    caller = service_caller(GROUP, Organization(organization_id, "", ""), "content-change")
    routing = []
    for app_id in app_ids:
        try:
            site = await apps.site(caller, app_id)
        except NotFound:
            continue
        if any(target in documents for _, target in site["routes"]):
            routing.append(app_id)
    return routing


async def rerun(pool: aiopg.Pool, organization_id: str, app_ids: list[str]) -> int:
    """Queue a re-run of each environment of the organization's re-run tasks visiting `app_ids`;
    how many were queued."""
    queued = 0
    async with transaction(pool) as cur:
        environments = await fetch_all(
            cur,
            "SELECT e.id::text FROM environments e JOIN tasks t ON t.id = e.task_id"
            " WHERE t.organization_id = %s AND t.rerun_on_change AND t.deleted_at IS NULL AND e.deleted_at IS NULL"
            " AND t.app_id = ANY(%s::uuid[])"
            " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.environment_id = e.id AND r.status = 'queued'"
            "   AND r.trigger = %s)"
            " ORDER BY e.created_at FOR UPDATE OF e",
            (organization_id, app_ids, TRIGGER),
        )
        for row in environments:
            try:
                environment, assignment = await assignment_for(cur, organization_id, row["id"])
            except ValidationFailed as refused:
                log.warning("environment %s cannot re-run: %s", row["id"], refused.details)
                continue
            queued += len(await queue.enqueue(cur, organization_id, environment, assignment, 1, TRIGGER))
    return queued


class ContentChanges(StreamConsumer):
    """Reads content events as the simulations group and queues the re-runs they call for."""

    def __init__(self, redis: aioredis.Redis, stream: str, pool: aiopg.Pool, apps: EdgeAppsClient) -> None:
        # "$": only changes from now on; what happened before the part first read the stream is past.
        super().__init__(redis, stream, GROUP, start="$")
        self._pool = pool
        self._apps = apps

    async def handle(self, entries: Iterable[Entry]) -> None:
        # organization -> (the changed documents, the entries that said so)
        by_organization: dict[str, tuple[set[str], list[bytes]]] = {}
        for entry_id, fields in entries:
            try:
                event = loads(fields[b"event"])
                organization_id, kind, document_id = str(event["organizationId"]), event["type"], event["documentId"]
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed content event %r", entry_id)
                await self.ack(entry_id)
                continue
            if kind in CHANGES:
                documents, entry_ids = by_organization.setdefault(organization_id, (set(), []))
                documents.add(str(document_id))
                entry_ids.append(entry_id)
            else:
                await self.ack(entry_id)
        for organization_id, (documents, entry_ids) in by_organization.items():
            async with cursor(self._pool) as cur:
                watched = await watched_apps(cur, organization_id)
            changed = await apps_routing(self._apps, organization_id, watched, documents) if watched else []
            if changed:
                await rerun(self._pool, organization_id, changed)
            await self.ack(*entry_ids)
