"""What the gateway keeps of keyed requests in PostgreSQL (`identity.idempotency_keys`): their
answers, stored together as they go out, read back for replays, purged after 24 hours; and the
claims made here while Redis does not answer (gateway/edge/idempotency.py says when)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import aiopg

from libs.common.db import Row, cursor, fetch_one, fetch_value, json_or_null
from libs.common.tasks import report_failure

RETENTION_SECONDS = 24 * 3600
PURGE_SECONDS = 600
PURGE_BATCH = 5000
# Answers are stored together, those that came within this many seconds (at most STORE_BATCH a
# statement): one statement for a dozen answers at a few hundred writes a second, where one each
# cost a fifth of a write's throughput (docs/performance.md). A gateway that dies loses the answers
# of its last STORE_WAIT_SECONDS; their claims expire and a retry runs again.
STORE_WAIT_SECONDS = 0.05
STORE_BATCH = 200
# A claim in PostgreSQL, and its release, commit without waiting for the disk (the two statements
# run as one implicit transaction): one lost in a database crash only frees the key, as a claim
# expiring does; the stored answer, flushed after it, waits (and flushes the claim with it).
NOT_WAITING_FOR_DISK = "SET LOCAL synchronous_commit = off;"


@dataclass(frozen=True)
class Scope:
    """One request's key: whose it is, the request it stands for, and this request's claim."""

    organization_id: str
    caller: str
    key: str
    fingerprint: bytes
    claim: str

    def params(self) -> dict[str, Any]:
        return {
            "organization_id": self.organization_id,
            "caller": self.caller,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "claim": self.claim,
        }


@dataclass(frozen=True)
class Answer:
    """An answer to store: its status, headers and body."""

    scope: Scope
    status: int
    headers: dict[str, str]
    body: bytes


class AnswerStore:
    """Keyed requests' answers (and claims, while Redis does not answer) in the gateway's schema."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool
        self._unstored: list[Answer] = []
        self._storing: asyncio.Future[None] | None = None

    def store(self, answer: Answer) -> None:
        """Keep the answer, with those of the next STORE_WAIT_SECONDS, while it goes out: the claim
        keeps the key meanwhile."""
        self._unstored.append(answer)
        if self._storing is None or self._storing.done():
            self._storing = asyncio.ensure_future(self._store_pending())

    async def _store_pending(self) -> None:
        await asyncio.sleep(STORE_WAIT_SECONDS)
        while self._unstored:
            batch, self._unstored = self._unstored[:STORE_BATCH], self._unstored[STORE_BATCH:]
            await self._write(batch)

    async def drain(self) -> None:
        """Store the answers still waiting (at shutdown)."""
        while self._storing is not None and not self._storing.done():
            await self._storing

    async def _write(self, answers: list[Answer]) -> None:
        """One statement for the answers; a request's claim, if it is a row, becomes its answer. The
        callers got their answers even when the database fails here; the claims then expire and a
        retry runs again."""
        try:
            async with cursor(self._pool) as cur:
                await cur.execute(
                    "INSERT INTO idempotency_keys"
                    " (organization_id, caller, key, fingerprint, claim, claimed_until, status, headers, body)"
                    " SELECT organization_id, caller, key, fingerprint, claim, clock_timestamp(), status, headers, body"
                    " FROM unnest(%s::uuid[], %s::text[], %s::text[], %s::bytea[], %s::uuid[], %s::smallint[],"
                    " %s::jsonb[], %s::bytea[]) AS a(organization_id, caller, key, fingerprint, claim, status, headers,"
                    " body)"
                    " ON CONFLICT (organization_id, caller, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,"
                    " claim = EXCLUDED.claim, claimed_until = EXCLUDED.claimed_until, status = EXCLUDED.status,"
                    " headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = EXCLUDED.created_at"
                    # Its own claim's row, or one free to be taken (past its 24 hours, or a claim expired).
                    " WHERE idempotency_keys.claim = EXCLUDED.claim"
                    " OR idempotency_keys.created_at < clock_timestamp() - make_interval(secs => %s)"
                    " OR (idempotency_keys.status IS NULL AND idempotency_keys.claimed_until < clock_timestamp())",
                    (
                        [answer.scope.organization_id for answer in answers],
                        [answer.scope.caller for answer in answers],
                        [answer.scope.key for answer in answers],
                        [answer.scope.fingerprint for answer in answers],
                        [answer.scope.claim for answer in answers],
                        [answer.status for answer in answers],
                        [json_or_null(answer.headers) for answer in answers],
                        [answer.body for answer in answers],
                        RETENTION_SECONDS,
                    ),
                )
        except Exception as exc:  # a database away is counted by its outage; anything else is an error
            report_failure(exc, "storing the answers of idempotent requests")

    async def claim(self, scope: Scope, seconds: float) -> bool:
        """Take the key: new, or one kept past its 24 hours, or an expired claim of the same request."""
        async with cursor(self._pool) as cur:
            row = await fetch_one(
                cur,
                f"{NOT_WAITING_FOR_DISK} INSERT INTO idempotency_keys"
                " (organization_id, caller, key, fingerprint, claim, claimed_until)"
                " VALUES (%(organization_id)s, %(caller)s, %(key)s, %(fingerprint)s, %(claim)s,"
                " clock_timestamp() + make_interval(secs => %(seconds)s))"
                " ON CONFLICT (organization_id, caller, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,"
                " claim = EXCLUDED.claim, claimed_until = EXCLUDED.claimed_until, status = NULL, headers = NULL,"
                " body = NULL, created_at = clock_timestamp()"
                " WHERE idempotency_keys.created_at < clock_timestamp() - make_interval(secs => %(retention)s)"
                " OR (idempotency_keys.status IS NULL AND idempotency_keys.claimed_until < clock_timestamp()"
                " AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)"
                " RETURNING claim",
                {**scope.params(), "seconds": seconds, "retention": RETENTION_SECONDS},
            )
        return row is not None and str(row["claim"]) == scope.claim

    async def held(self, scope: Scope) -> Row | None:
        """The key's row as another request left it (an answer, or a claim in PostgreSQL), unless it
        has expired."""
        async with cursor(self._pool) as cur:
            return await fetch_one(
                cur,
                "SELECT fingerprint, status, headers, body FROM idempotency_keys"
                " WHERE organization_id = %(organization_id)s AND caller = %(caller)s AND key = %(key)s"
                " AND created_at >= clock_timestamp() - make_interval(secs => %(retention)s)"
                " AND (status IS NOT NULL OR claimed_until >= clock_timestamp())",
                {**scope.params(), "retention": RETENTION_SECONDS},
            )

    async def kept_recently(self) -> bool:
        """Whether any answer or claim of the last 24 hours is kept."""
        async with cursor(self._pool) as cur:
            kept: bool = await fetch_value(
                cur,
                "SELECT EXISTS (SELECT FROM idempotency_keys"
                " WHERE created_at >= clock_timestamp() - make_interval(secs => %s))",
                (RETENTION_SECONDS,),
            )
        return kept

    async def release(self, scope: Scope) -> None:
        try:
            async with cursor(self._pool) as cur:
                await cur.execute(
                    f"{NOT_WAITING_FOR_DISK} DELETE FROM idempotency_keys WHERE organization_id = %(organization_id)s"
                    " AND caller = %(caller)s AND key = %(key)s AND claim = %(claim)s AND status IS NULL",
                    scope.params(),
                )
        except Exception as exc:  # it expires on its own
            report_failure(exc, "releasing an idempotency claim")

    async def purge(self) -> int:
        """Delete keys older than 24 hours, a batch at a time; how many went."""
        removed = 0
        while True:
            async with cursor(self._pool) as cur:
                await cur.execute(
                    "DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(SELECT ctid FROM idempotency_keys"
                    " WHERE created_at < clock_timestamp() - make_interval(secs => %s) LIMIT %s))",
                    (RETENTION_SECONDS, PURGE_BATCH),
                )
                removed += cur.rowcount
                if cur.rowcount < PURGE_BATCH:
                    return removed
