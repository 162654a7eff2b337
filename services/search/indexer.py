"""Keeps the index in step with the content service, off the request path.

Content events arrive on a Redis stream (docs/architecture.md, "Events"). The search replicas
read it as one consumer group, so each event is handled by one of them; an event is
acknowledged only once its document is stored, and one left unacknowledged by a replica that
died is claimed by another after CLAIM_IDLE_MS. Handlers are idempotent: an event only says
which document changed; the document is read afresh from the content service and the index
made to match it, so a replay, a duplicate or events out of order all end in the same state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import aiopg
import redis.asyncio as aioredis
from prometheus_client import Gauge
from redis.exceptions import RedisError, ResponseError

from libs.common.db import cursor, transaction
from libs.common.encoding import loads
from libs.common.errors import NotFound
from libs.common.http_client import InternalClient
from libs.common.internal_token import Caller, Organization, service_caller
from libs.common.metrics import REDIS_ERRORS
from services.search import chunking, store
from services.search.embedding import Embedder

log = logging.getLogger(__name__)

GROUP = "search-indexer"
READ_COUNT = 100
# Below the Redis client's socket timeout, so a quiet stream is not taken for a dead connection.
READ_BLOCK_MS = 500
CLAIM_IDLE_MS = 30_000
CLAIM_EVERY_SECONDS = 10.0
PAGE_SIZE = 200
RETRY_SECONDS = 1.0
LAG_EVERY_SECONDS = 5.0

# Every indexing worker reads the same consumer group: the highest sample is the current one.
PENDING_EVENTS = Gauge(
    "search_indexing_pending_events",
    "Content events not yet indexed: not yet read, or read and not acknowledged.",
    multiprocess_mode="livemax",
)
OLDEST_PENDING_AGE = Gauge(
    "search_indexing_oldest_pending_age_seconds",
    "Age of the oldest content event not yet indexed (0 when none).",
    multiprocess_mode="livemax",
)


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def content_digest(title: str, content: str) -> bytes:
    """What the chunks of a document are made of; equal digests need no new embedding."""
    return hashlib.sha256(f"{title}\0{content}".encode()).digest()


class Indexer:
    def __init__(
        self,
        pool: aiopg.Pool,
        http: InternalClient,
        content_url: str,
        embedder: Embedder,
        threads: int = 1,
    ) -> None:
        self._pool = pool
        self._http = http
        self._content_url = content_url
        self._embedder = embedder
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="search-index")

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    @staticmethod
    def _caller(organization_id: str) -> Caller:
        # The content service reads only the organization's id from the token.
        return service_caller("search", Organization(id=organization_id, slug="", name=""))

    async def index(self, organization_id: str, document_id: str) -> None:
        """Make the index hold the document as the content service has it now."""
        url = f"{self._content_url}/internal/documents/{document_id}"
        try:
            document = await self._http.call("GET", url, self._caller(organization_id))
        except NotFound:
            await self._remove(organization_id, document_id, None)
            return
        await self.apply(organization_id, document)

    async def apply(self, organization_id: str, document: dict[str, Any]) -> None:
        """Store a full content document (as the content service answers it) in the index."""
        if document.get("deletedAt"):
            await self._remove(organization_id, document["id"], parse_time(document["deletedAt"]))
            return
        indexed = store.IndexedDocument(
            id=document["id"],
            organization_id=organization_id,
            product_id=document["brandId"],
            status=document["status"] or "draft",
            type=document.get("type"),
            title=document.get("title") or "",
            file_path=document.get("filePath"),
            source_url=document.get("sourceUrl"),
            version=parse_time(document["updatedAt"]),
        )
        text = document.get("content") or ""
        digest = content_digest(indexed.title, text)
        async with cursor(self._pool) as cur:
            stored = await store.stored_digest(cur, indexed.id)
        if stored is not None and stored[0] > indexed.version:
            return  # the index already holds a newer read
        chunks: list[str] | None = None
        vectors = None
        if stored is None or stored[1] != digest:
            chunks = chunking.split(text, self._embedder.token_count) or [indexed.title]
            loop = asyncio.get_running_loop()
            texts = [chunking.model_text(indexed.title, chunk) for chunk in chunks]
            vectors = await loop.run_in_executor(self._executor, self._embedder.embed, texts)
        indexed_at = datetime.now(UTC)
        async with transaction(self._pool) as cur:
            saved = await store.save_document(cur, indexed, digest, chunks, vectors, indexed_at)
        if saved:
            await self._report(organization_id, indexed.id, indexed_at)

    async def _remove(self, organization_id: str, document_id: str, version: datetime | None) -> None:
        async with transaction(self._pool) as cur:
            await store.remove_document(cur, organization_id, document_id, version)

    async def _report(self, organization_id: str, document_id: str, indexed_at: datetime) -> None:
        url = f"{self._content_url}/internal/documents/{document_id}/indexed"
        try:
            await self._http.call("POST", url, self._caller(organization_id), json={"lastIndexedAt": indexed_at})
        except NotFound:
            pass  # deleted meanwhile; its own event takes it out of the index

    async def reindex(self, organization_id: str) -> tuple[int, int]:
        """Rebuild an organization's index from the content service. Returns (indexed, removed)."""
        seen: set[str] = set()
        after: str | None = None
        while True:
            query = f"limit={PAGE_SIZE}" + (f"&after={after}" if after else "")
            url = f"{self._content_url}/internal/organizations/{organization_id}/documents?{query}"
            page = await self._http.call("GET", url, self._caller(organization_id))
            for document in page["documents"]:
                await self.apply(organization_id, document)
                seen.add(document["id"])
            after = page["next"]
            if after is None:
                break
        async with cursor(self._pool) as cur:
            gone = await store.organization_document_ids(cur, organization_id) - seen
        for document_id in sorted(gone):
            await self._remove(organization_id, document_id, None)
        return len(seen), len(gone)


class EventConsumer:
    """Reads content events as a member of the search consumer group and indexes what they name."""

    def __init__(
        self, redis: aioredis.Redis, stream: str, indexer: Indexer, *, group: str = GROUP, start: str = "0"
    ) -> None:
        self._redis = redis
        self._stream = stream
        self._indexer = indexer
        self._group = group
        # Where a group made by this consumer starts: "0", everything the stream holds; "$", new events.
        self._start = start
        self._name = f"{socket.gethostname()}-{os.getpid()}"
        self._ready = False
        self._claimed_at = 0.0

    async def ensure_group(self) -> None:
        if self._ready:
            return
        try:
            await self._redis.xgroup_create(self._stream, self._group, id=self._start, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._ready = True

    async def measure_lag(self) -> None:
        """Publish how far indexing is behind the stream (a periodic task of every indexing worker)."""
        try:
            await self.ensure_group()
            pending, oldest = await self._lag()
        except RedisError:
            REDIS_ERRORS.labels("indexing_lag").inc()
            log.warning("indexing lag unmeasurable: Redis unreachable")
            return
        PENDING_EVENTS.set(pending)
        OLDEST_PENDING_AGE.set(oldest)

    async def _lag(self) -> tuple[int, float]:
        """Events not yet acknowledged or not yet read by the group, and the oldest one's age."""
        groups = await self._redis.xinfo_groups(self._stream)
        group = next(g for g in groups if _text(g["name"]) == self._group)
        unacknowledged, unread = int(group["pending"]), int(group.get("lag") or 0)
        if unacknowledged:
            first = _text((await self._redis.xpending(self._stream, self._group))["min"])
            entries = await self._redis.xrange(self._stream, min=first, max=first, count=1)
        elif unread:
            entries = await self._redis.xrange(self._stream, min="(" + _text(group["last-delivered-id"]), count=1)
        else:
            return 0, 0.0
        age = 0.0
        if entries:
            occurred = parse_time(loads(entries[0][1][b"event"])["occurredAt"])
            age = max((datetime.now(UTC) - occurred).total_seconds(), 0.0)
        return unacknowledged + unread, age

    async def _claim_stale(self) -> list[tuple[bytes, dict[bytes, bytes]]]:
        """Entries another consumer took and never acknowledged (it died, or its handler failed)."""
        loop_time = asyncio.get_running_loop().time()
        if loop_time - self._claimed_at < CLAIM_EVERY_SECONDS:
            return []
        self._claimed_at = loop_time
        _, entries, *_ = await self._redis.xautoclaim(
            self._stream, self._group, self._name, CLAIM_IDLE_MS, count=READ_COUNT
        )
        return [entry for entry in entries if entry[1]]

    async def step(self) -> int:
        """One round: handle what is waiting (or wait briefly for it). Returns how many entries."""
        try:
            return await self._step()
        except RedisError:
            REDIS_ERRORS.labels("events_read").inc()
            log.warning("content events unreadable; retrying in %gs", RETRY_SECONDS, exc_info=True)
            await asyncio.sleep(RETRY_SECONDS)
            return 0

    async def _step(self) -> int:
        await self.ensure_group()
        entries = await self._claim_stale()
        if not entries:
            answer = await self._redis.xreadgroup(
                self._group, self._name, {self._stream: ">"}, count=READ_COUNT, block=READ_BLOCK_MS
            )
            entries = [entry for _, stream_entries in answer for entry in stream_entries] if answer else []
        await self.handle(entries)
        return len(entries)

    async def handle(self, entries: Iterable[tuple[bytes, dict[bytes, bytes]]]) -> None:
        """Index each named document once (the latest read covers every event about it), then
        acknowledge its events. A failure leaves its events pending, to be claimed again."""
        by_document: dict[tuple[str, str], list[bytes]] = {}
        for entry_id, fields in entries:
            try:
                event = loads(fields[b"event"])
                key = (str(event["organizationId"]), str(event["documentId"]))
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed content event %r", entry_id)
                await self._redis.xack(self._stream, self._group, entry_id)
                continue
            by_document.setdefault(key, []).append(entry_id)
        for (organization_id, document_id), entry_ids in by_document.items():
            try:
                await self._indexer.index(organization_id, document_id)
            except Exception:
                log.exception("indexing document %s failed; its events stay pending", document_id)
                continue
            await self._redis.xack(self._stream, self._group, *entry_ids)
