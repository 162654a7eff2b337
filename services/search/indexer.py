"""Keeps the index in step with the content service, off the request path.

Content events arrive on a Redis stream (docs/architecture.md, "Events"). The search replicas
read it as one consumer group (libs/common/stream_consumer.py); an event is acknowledged only
once its document is stored. Handlers are idempotent: an event only says
which document changed; the document is read afresh from the content service and the index
made to match it, so a replay, a duplicate or events out of order all end in the same state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import aiopg
import numpy as np
import redis.asyncio as aioredis
from prometheus_client import Gauge
from redis.exceptions import RedisError

from libs.common.catch_up import NotApplied
from libs.common.clients import ContentClient
from libs.common.db import cursor, is_database_unavailable, transaction
from libs.common.encoding import loads
from libs.common.errors import ApiError, NotFound
from libs.common.internal_token import Caller, Organization, service_caller
from libs.common.metrics import REDIS_ERRORS
from libs.common.outage import Outage
from libs.common.stream_consumer import Entry, StreamConsumer
from services.search import chunking, store
from services.search.embedding import Embedder
from services.search.metrics import INDEXING_LAG

log = logging.getLogger(__name__)

GROUP = "search-indexer"
# Documents of one read handled at once: their reads and writes overlap the embedding of others,
# and every indexing thread has work. More would only queue for the threads.
DOCUMENTS_AT_ONCE = 4
PAGE_SIZE = 200
# The content service or this part's own pool failing under the indexer (an outage): two lines,
# not a trace per document and retry; the documents' events stay pending and are read again.
DOCUMENTS_UNAVAILABLE = Outage("documents to index", log)
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


def _yield_cpu() -> None:
    """Run the calling thread only on CPU time nothing else wants (SCHED_IDLE; Linux schedules
    threads one by one): a burst of writes is embedded on every idle core, and under contention
    the event loop and the query pool go first, so searches do not queue behind indexing
    (docs/architecture.md, "Indexing")."""
    os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))


def content_digest(title: str, content: str) -> bytes:
    """What the chunks of a document are made of; equal digests need no new embedding."""
    return hashlib.sha256(f"{title}\0{content}".encode()).digest()


class Indexer:
    def __init__(
        self,
        pool: aiopg.Pool,
        content: ContentClient,
        embedder: Embedder,
        threads: int = 1,
    ) -> None:
        self._pool = pool
        self._content = content
        self._embedder = embedder
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="search-index", initializer=_yield_cpu)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    @staticmethod
    def _caller(organization_id: str) -> Caller:
        # The content service reads only the organization's id from the token.
        return service_caller("search", Organization(id=organization_id, slug="", name=""))

    async def index(self, organization_id: str, document_id: str) -> None:
        """Make the index hold the document as the content service has it now."""
        try:
            document = await self._content.document(self._caller(organization_id), document_id)
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
        vectors: np.ndarray | None = None
        if stored is None or stored[1] != digest:
            loop = asyncio.get_running_loop()
            chunks, vectors = await loop.run_in_executor(self._executor, self._embed, indexed.title, text)
        indexed_at = datetime.now(UTC)
        async with transaction(self._pool) as cur:
            saved = await store.save_document(cur, indexed, digest, chunks, vectors, indexed_at)
        if saved:
            await self._report(organization_id, indexed.id, indexed_at)

    def _embed(self, title: str, text: str) -> tuple[list[str], np.ndarray]:
        """A document's chunks and their vectors (in an indexing thread: tokenizing is work too)."""
        chunks = chunking.split(text, self._embedder.token_count) or [title]
        return chunks, self._embedder.embed([chunking.model_text(title, chunk) for chunk in chunks])

    async def _remove(self, organization_id: str, document_id: str, version: datetime | None) -> None:
        async with transaction(self._pool) as cur:
            await store.remove_document(cur, organization_id, document_id, version)

    async def _report(self, organization_id: str, document_id: str, indexed_at: datetime) -> None:
        try:
            await self._content.mark_indexed(self._caller(organization_id), document_id, indexed_at)
        except NotFound:
            pass  # deleted meanwhile; its own event takes it out of the index

    async def reindex(self, organization_id: str) -> tuple[int, int]:
        """Rebuild an organization's index from the content service. Returns (indexed, removed)."""
        seen: set[str] = set()
        after: str | None = None
        while True:
            documents, after = await self._content.organization_documents(
                self._caller(organization_id), organization_id, after, PAGE_SIZE
            )
            for document in documents:
                await self.apply(organization_id, document)
                seen.add(document["id"])
            if after is None:
                break
        async with cursor(self._pool) as cur:
            gone = await store.organization_document_ids(cur, organization_id) - seen
        for document_id in sorted(gone):
            await self._remove(organization_id, document_id, None)
        return len(seen), len(gone)


class EventConsumer(StreamConsumer):
    """Reads content events as a member of the search consumer group and indexes what they name."""

    def __init__(
        self, redis: aioredis.Redis, stream: str, indexer: Indexer, *, group: str = GROUP, start: str = "0"
    ) -> None:
        super().__init__(redis, stream, group, start)
        self._indexer = indexer

    async def measure_lag(self) -> None:
        """Publish how far indexing is behind the stream (a periodic task of every indexing worker)."""
        try:
            pending, oldest = await self.lag()
        except RedisError:
            REDIS_ERRORS.labels("indexing_lag").inc()  # Redis being away is logged by its connections
            return
        PENDING_EVENTS.set(pending)
        OLDEST_PENDING_AGE.set(oldest)

    async def handle(self, entries: Iterable[Entry]) -> None:
        """Index each named document once (the latest read covers every event about it), then
        acknowledge its events. A failure leaves its events pending, to be read again."""
        by_document: dict[tuple[str, str], _Pending] = {}
        for entry_id, fields in entries:
            try:
                event = loads(fields[b"event"])
                key = (str(event["organizationId"]), str(event["documentId"]))
            except (KeyError, TypeError, ValueError):
                log.error("skipping malformed content event %r", entry_id)
                await self.ack(entry_id)
                continue
            by_document.setdefault(key, _Pending()).add(entry_id, event.get("occurredAt"))

        async def done(key: tuple[str, str]) -> None:
            pending = by_document[key]
            await self.ack(*pending.entry_ids)
            if pending.first_occurred is not None:
                INDEXING_LAG.observe(max(0.0, (datetime.now(UTC) - pending.first_occurred).total_seconds()))

        await self._index_all(by_document, done)

    async def apply_events(self, events: list[dict[str, Any]]) -> None:
        """Index every document the events name (changes read from the content service when the
        stream lost them: libs/common/catch_up.py); raise when any failed, so none is skipped."""
        documents = list(dict.fromkeys((str(event["organizationId"]), str(event["documentId"])) for event in events))
        failed = await self._index_all(documents, None)
        if failed:
            raise NotApplied(f"{failed} of {len(documents)} documents failed to index")

    async def _index_all(
        self, documents: Iterable[tuple[str, str]], done: Callable[[tuple[str, str]], Awaitable[None]] | None
    ) -> int:
        """Index each (organization, document), DOCUMENTS_AT_ONCE at a time, then await `done` for
        it. Returns how many failed (logged); their events stay pending."""
        slots = asyncio.Semaphore(DOCUMENTS_AT_ONCE)
        failed = 0

        async def index(key: tuple[str, str]) -> None:
            nonlocal failed
            async with slots:
                try:
                    await self._indexer.index(*key)
                except Exception as exc:
                    failed += 1
                    if is_database_unavailable(exc):
                        pass  # this part's database: counted by its outage (libs.common.db)
                    elif isinstance(exc, ApiError) and exc.status >= 500:
                        DOCUMENTS_UNAVAILABLE.failed(exc)
                    else:
                        log.exception("indexing document %s failed; its events stay pending", key[1])
                    return
            DOCUMENTS_UNAVAILABLE.answered()
            if done is not None:
                await done(key)

        # No document of the read outlives the step, even when another's acknowledgement failed;
        # that failure is raised once all are done, and what is unacknowledged is read again.
        outcomes = await asyncio.gather(*(index(key) for key in documents), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return failed


class _Pending:
    """The events of one document in a read: their entry ids and when the first one happened."""

    def __init__(self) -> None:
        self.entry_ids: list[bytes] = []
        self.first_occurred: datetime | None = None

    def add(self, entry_id: bytes, occurred_at: object) -> None:
        self.entry_ids.append(entry_id)
        try:
            occurred = parse_time(occurred_at) if isinstance(occurred_at, str) else None
        except ValueError:
            occurred = None
        if occurred is not None and occurred.tzinfo is not None:
            self.first_occurred = min(occurred, self.first_occurred or occurred)
