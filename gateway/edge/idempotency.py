"""Retries without fear: the `Idempotency-Key` of POST, PUT, PATCH and DELETE requests.

The first request with a key claims it (a row of `idempotency_keys`, per organization and caller)
before it is sent upstream, and its answer is stored when it comes. The same key again, within
24 hours, with the same method, path (and query) and body answers the stored result with
`Idempotent-Replayed: true`; with another request it is a 422 `IDEMPOTENCY_KEY_REUSED`; while the
first is still running, a 409 `IDEMPOTENCY_IN_PROGRESS`.

Only complete answers below 500 are stored (successes, and refusals such as a 409 or a 422, which
the same request would meet again). A 5xx, or a failure of the gateway itself, releases the claim,
so a retry runs the request again: nothing ran (502 refused, 503), or the service rolled its
transaction back (500); after a 504 the write may have happened, and the services' own unique
rules (slug, path, hostname) are what stops a second copy. A gateway that dies mid-request
leaves a claim that expires with the route's timeout, after which the key may be used again.
Everything lives in PostgreSQL, so neither a Redis restart nor another replica loses a key.

The first answer goes out while it is being stored (durably, off the request's path): a write
then costs one round trip more than without a key (the claim, which does not wait for the disk),
not two and a disk flush. The same key arriving in the moment between is still claimed, so it
asks again a few times over SETTLE_SECONDS before it answers 409: a retry sent as soon as the
first answer arrived gets that answer, replayed.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiopg
from aiohttp import web

from gateway.edge.envelope import error_response
from gateway.identity import Identity
from libs.common import errors
from libs.common.db import Row, cursor, fetch_one, json_or_null
from libs.common.encoding import JSON_CONTENT_TYPE
from libs.common.tasks import report_failure, watch

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_KEY_LENGTH = 255
RETENTION_SECONDS = 24 * 3600
# A claim outlives the route's timeout by this much; past it, a claim without an answer is free.
CLAIM_MARGIN_SECONDS = 5.0
PURGE_SECONDS = 600
PURGE_BATCH = 5000
# A key found claimed is asked for again after each of these pauses (its answer may be being
# stored) before the request is refused as in progress; a claim released between our insert and
# our read is claimed again meanwhile.
SETTLE_SECONDS = (0.005, 0.01, 0.02, 0.04)
# A claim, and its release, commit without waiting for the disk (the two statements run as one
# implicit transaction): one lost in a database crash only frees the key, as a claim expiring does;
# the stored answer, flushed after it, waits (and flushes the claim with it). About 6 ms less a
# keyed write on this machine's disk (docs/performance.md).
NOT_WAITING_FOR_DISK = "SET LOCAL synchronous_commit = off;"
# Headers of the answer that are transport, not content: never stored.
UNSTORED_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})

Respond = Callable[[], Awaitable[web.Response]]


def idempotency_key(request: web.Request) -> str | None:
    """The request's key, if it sent one; 400 for an empty one, one over 255 characters, or two."""
    values = request.headers.getall(HEADER, [])
    if not values:
        return None
    if len(values) > 1:
        raise errors.BadRequest(f"send one {HEADER} header", details={HEADER: "Sent more than once."})
    key: str = values[0]
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise errors.BadRequest(
            f"the {HEADER} header must hold 1 to {MAX_KEY_LENGTH} characters",
            details={HEADER: f"Length must be between 1 and {MAX_KEY_LENGTH}."},
        )
    return key


def fingerprint(request: web.Request, body: bytes) -> bytes:
    """What makes two requests the same one: method, path with query, and body."""
    digest = hashlib.sha256(request.method.encode())
    digest.update(b"\0" + request.rel_url.raw_path_qs.encode() + b"\0")
    digest.update(body)
    return digest.digest()


def _replay(row: Row) -> web.Response:
    headers = {**row["headers"], REPLAYED_HEADER: "true"}
    return web.Response(body=bytes(row["body"]), status=row["status"], headers=headers)


class Idempotency:
    """Claims, stores and replays keyed requests in the gateway's schema."""

    def __init__(self, pool: aiopg.Pool) -> None:
        self._pool = pool
        # Answers being stored (kept referenced until done; `_store` reports its own failures).
        self._storing: set[asyncio.Future[None]] = set()

    async def run(
        self, request: web.Request, identity: Identity, key: str, body: bytes, timeout: float, respond: Respond
    ) -> web.Response:
        """The stored answer of `key`, or `respond()`'s, stored for the next request with the key."""
        scope = {
            "organization_id": identity.organization.id,
            "caller": f"{identity.kind}:{identity.principal_id}",
            "key": key,
            "fingerprint": fingerprint(request, body),
            "claim": uuid.uuid4(),
        }
        for pause in (*SETTLE_SECONDS, None):
            if await self._claim(scope, timeout + CLAIM_MARGIN_SECONDS):
                return await self._answer(scope, respond)
            held = await self._held(scope)
            if held is not None and bytes(held["fingerprint"]) != scope["fingerprint"]:
                raise errors.IdempotencyKeyReused(
                    f"the {HEADER} {key!r} was used with another method, path or body in the last 24 hours",
                    details={HEADER: key},
                )
            if held is not None and held["status"] is not None:
                return _replay(held)
            if pause is None:
                break
            if held is not None:  # claimed: running, or its answer being stored
                await asyncio.sleep(pause)
            # else released or expired meanwhile: claim again
        raise errors.IdempotencyInProgress(
            f"the first request with the {HEADER} {key!r} is still running; retry in a moment"
        )

    async def _answer(self, scope: dict[str, Any], respond: Respond) -> web.Response:
        """Run the request holding the claim; keep its answer, or give the claim back."""
        try:
            response = await respond()
        except errors.ApiError as error:
            if error.status < 500:
                body = error_response(error).body
                assert isinstance(body, bytes)  # an envelope, encoded whole
                await self._store(scope, error.status, {"Content-Type": JSON_CONTENT_TYPE}, body)
            else:
                await self._release(scope)
            raise
        except BaseException:
            # Cancelled (the route's deadline) or broken: the claim goes back in the background, so
            # the answer never waits on a database that may be what did not answer.
            watch(asyncio.ensure_future(self._release(scope)), "releasing an idempotency claim")
            raise
        if response.status >= 500 or not isinstance(response.body, bytes):
            await self._release(scope)
            return response
        headers = {str(name): value for name, value in response.headers.items() if name.lower() not in UNSTORED_HEADERS}
        # Stored while the answer goes out: the claim keeps the key meanwhile.
        stored = self._store(scope, response.status, headers, response.body)
        self._storing.add(task := asyncio.ensure_future(stored))
        task.add_done_callback(self._storing.discard)
        return response

    async def _claim(self, scope: dict[str, Any], seconds: float) -> bool:
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
                {**scope, "claim": str(scope["claim"]), "seconds": seconds, "retention": RETENTION_SECONDS},
            )
        return row is not None and str(row["claim"]) == str(scope["claim"])

    async def _held(self, scope: dict[str, Any]) -> Row | None:
        """The key's row as another request left it, unless it has expired."""
        async with cursor(self._pool) as cur:
            return await fetch_one(
                cur,
                "SELECT fingerprint, status, headers, body FROM idempotency_keys"
                " WHERE organization_id = %(organization_id)s AND caller = %(caller)s AND key = %(key)s"
                " AND created_at >= clock_timestamp() - make_interval(secs => %(retention)s)"
                " AND (status IS NOT NULL OR claimed_until >= clock_timestamp())",
                {**scope, "retention": RETENTION_SECONDS},
            )

    async def _store(self, scope: dict[str, Any], status: int, headers: dict[str, str], body: bytes) -> None:
        """Keep the answer. The caller gets its answer even when the database fails here; the claim
        then expires and a retry runs again."""
        try:
            async with cursor(self._pool) as cur:
                await cur.execute(
                    "UPDATE idempotency_keys SET status = %(status)s, headers = %(headers)s, body = %(body)s"
                    " WHERE organization_id = %(organization_id)s AND caller = %(caller)s AND key = %(key)s"
                    " AND claim = %(claim)s",
                    {
                        **scope,
                        "claim": str(scope["claim"]),
                        "status": status,
                        "headers": json_or_null(headers),
                        "body": body,
                    },
                )
        except Exception as exc:  # a database away is counted by its outage; anything else is an error
            report_failure(exc, "storing the answer of an idempotent request")

    async def _release(self, scope: dict[str, Any]) -> None:
        try:
            async with cursor(self._pool) as cur:
                await cur.execute(
                    f"{NOT_WAITING_FOR_DISK} DELETE FROM idempotency_keys WHERE organization_id = %(organization_id)s"
                    " AND caller = %(caller)s AND key = %(key)s AND claim = %(claim)s AND status IS NULL",
                    {**scope, "claim": str(scope["claim"])},
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
