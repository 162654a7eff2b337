"""Retries without fear: the `Idempotency-Key` of POST, PUT, PATCH and DELETE requests.

The first request with a key claims it (per organization and caller) before it is sent upstream,
and its answer is stored when it comes. The same key again, within 24 hours, with the same method,
path (and query) and body answers the stored result with `Idempotent-Replayed: true`; with another
request it is a 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running, a 409
`IDEMPOTENCY_IN_PROGRESS`.

Only complete answers below 500 are stored (successes, and refusals such as a 409 or a 422, which
the same request would meet again). A 5xx, or a failure of the gateway itself, releases the claim,
so a retry runs the request again: nothing ran (502 refused, 503), or the service rolled its
transaction back (500); after a 504 the write may have happened, and the services' own unique
rules (slug, path, hostname) are what stops a second copy. A gateway that dies mid-request
leaves a claim that expires with the route's timeout, after which the key may be used again.

Where each thing lives, for speed and for safety (docs/performance.md measured both):
- **The claim is one Redis script** on the request's path (`CLAIM`): it takes the key unless
  someone holds it, and its record stays for the key's 24 hours, naming the request's
  fingerprint and until when the claim runs. Every replica sees it at once.
- **The stored answers are in PostgreSQL**, written durably beside the answer going out, the
  answers of the requests of a few milliseconds together in one statement (idempotency_store.py): a replay
  reads them there, so no Redis restart loses an answer.
- **When Redis cannot be trusted to hold every claim** — it restarted empty, or a replica claimed
  in PostgreSQL while Redis did not answer — `COMPLETE_SINCE` says since when it does, and until
  24 hours have passed a key Redis does not know is also looked up in PostgreSQL first.
- **While Redis does not answer**, claims are rows of PostgreSQL, as the stored answers are.
A request finding the key claimed asks again a few times over SETTLE_SECONDS before it answers
409: a retry sent as soon as the first answer arrived gets that answer, replayed.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

import aiopg
import redis.asyncio as aioredis
from aiohttp import web

from gateway.edge.envelope import error_response
from gateway.edge.idempotency_store import RETENTION_SECONDS, Answer, AnswerStore, Scope
from gateway.identity import Identity
from libs.common import errors
from libs.common.db import Row
from libs.common.encoding import JSON_CONTENT_TYPE
from libs.common.redis_client import REDIS_OUTAGE, UNAVAILABLE
from libs.common.tasks import report_failure, watch

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_KEY_LENGTH = 255
# A claim outlives the route's timeout by this much; past it, a claim without an answer is free.
CLAIM_MARGIN_SECONDS = 5.0
# A claim's Redis record outlives its stored answer's 24 hours by this much, so that it still
# stands while the answer can be replayed.
RECORD_SECONDS = RETENTION_SECONDS + 3600
# A key found claimed is asked for again after each of these pauses (its answer may be waiting to
# be stored: STORE_WAIT_SECONDS and a statement) before the request is refused as in progress; a
# claim released between our claim and our read is claimed again meanwhile.
SETTLE_SECONDS = (0.005, 0.01, 0.02, 0.04, 0.08, 0.16)
# Headers of the answer that are transport, not content: never stored.
UNSTORED_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})

# KEYS[1]: the key's record, KEYS[2]: COMPLETE_SINCE. ARGV: the claim's record, its lifetime in
# ms. Claims the key unless it has a record; answers [the record found (nil when claimed), the
# time since which Redis holds every claim (nil when it does not know)].
CLAIM = """
local found = redis.call('GET', KEYS[1])
if not found then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return {found, redis.call('GET', KEYS[2])}
"""
# KEYS[1]: the key's record. ARGV: the record read, the new one (or '' to delete), lifetime in ms.
# Replaces (or deletes) the record only if it is still the one read: 1 if it did.
REPLACE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""
# How much of a request's fingerprint a Redis record keeps: enough to tell requests apart.
RECORDED_FINGERPRINT = 16
# Since when (Unix seconds) Redis holds the record of every key claimed: set when a replica first
# finds it missing (Redis new, or restarted empty) and when one claimed in PostgreSQL meanwhile.
COMPLETE_SINCE = "idempotency:complete-since"

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


def record_name(prefix: str, organization_id: str, caller: str, key: str) -> str:
    """The Redis record of a key: named by a digest, so that a record costs about 200 bytes of
    Redis whatever the key's length (docs/operations.md)."""
    digest = hashlib.blake2b(f"{organization_id}\0{caller}\0{key}".encode(), digest_size=16)
    return f"{prefix}idempotency:{digest.hexdigest()}"


@dataclass(frozen=True)
class Claim:
    """A claim's Redis record: who claimed (`claim`), until when it runs (Unix seconds), and the
    first RECORDED_FINGERPRINT bytes of its request's fingerprint."""

    claim: str
    until: float
    fingerprint: bytes

    def encode(self) -> str:
        return f"{uuid.UUID(self.claim).hex}:{round(self.until * 1000)}:{self.fingerprint[:RECORDED_FINGERPRINT].hex()}"

    @classmethod
    def decode(cls, record: bytes) -> Claim:
        claim, until, fingerprint = record.decode().split(":")
        return cls(str(uuid.UUID(claim)), int(until) / 1000, bytes.fromhex(fingerprint))

    def of(self, fingerprint: bytes) -> bool:
        """Whether the claim is of the request with `fingerprint`."""
        return self.fingerprint == fingerprint[:RECORDED_FINGERPRINT]


def _replay(row: Row) -> web.Response:
    headers = {**row["headers"], REPLAYED_HEADER: "true"}
    return web.Response(body=bytes(row["body"]), status=row["status"], headers=headers)


def _settles(held: Row, scope: Scope) -> bool:
    """Whether the key's row decides this request: an answer to replay, or another request's key."""
    return held["status"] is not None or bytes(held["fingerprint"]) != scope.fingerprint


def _reused(scope: Scope) -> errors.ApiError:
    return errors.IdempotencyKeyReused(
        f"the {HEADER} {scope.key!r} was used with another method, path or body in the last 24 hours",
        details={HEADER: scope.key},
    )


class Idempotency:
    """Claims keys in Redis (PostgreSQL while it does not answer), stores and replays answers in
    PostgreSQL, for keyed requests."""

    def __init__(self, pool: aiopg.Pool, redis: aioredis.Redis, prefix: str) -> None:
        self.answers = AnswerStore(pool)
        self._redis = redis
        self._prefix = prefix
        self._claim_script = redis.register_script(CLAIM)
        self._replace_script = redis.register_script(REPLACE)
        # Set when this process claimed in PostgreSQL: Redis is told, once it answers, that it does
        # not hold every claim since.
        self._claimed_elsewhere = False

    async def run(
        self, request: web.Request, identity: Identity, key: str, body: bytes, timeout: float, respond: Respond
    ) -> web.Response:
        """The stored answer of `key`, or `respond()`'s, stored for the next request with the key."""
        scope = Scope(
            str(identity.organization.id),
            f"{identity.kind}:{identity.principal_id}",
            key,
            fingerprint(request, body),
            str(uuid.uuid4()),
        )
        seconds = timeout + CLAIM_MARGIN_SECONDS
        if not REDIS_OUTAGE.down:
            try:
                return await self._run_claimed_in_redis(scope, seconds, respond)
            except UNAVAILABLE:
                pass  # REDIS_OUTAGE counted it
        self._claimed_elsewhere = True
        return await self._run_claimed_in_postgres(scope, seconds, respond)

    async def _run_claimed_in_redis(self, scope: Scope, seconds: float, respond: Respond) -> web.Response:
        if self._claimed_elsewhere:
            await self._redis.set(self._prefix + COMPLETE_SINCE, f"{time.time():.3f}")
            self._claimed_elsewhere = False
        record = record_name(self._prefix, scope.organization_id, scope.caller, scope.key)
        mine = Claim(scope.claim, time.time() + seconds, scope.fingerprint).encode()
        for pause in (*SETTLE_SECONDS, None):
            found, complete_since = await self._claim_script(
                keys=[record, self._prefix + COMPLETE_SINCE], args=[mine, int(RECORD_SECONDS * 1000)]
            )
            if found is None:
                held = None if await self._complete(complete_since) else await self.answers.held(scope)
                if held is None:
                    return await self._answer(scope, respond, partial(self._release_in_redis, record, mine))
                # Known to PostgreSQL from before Redis held every claim: as it says.
                await self._replace_script(keys=[record], args=[mine, "", 0])
                if _settles(held, scope):
                    return self._settled(scope, held)
            else:
                claim = Claim.decode(found)
                if not claim.of(scope.fingerprint):
                    raise _reused(scope)
                held = await self.answers.held(scope)
                if held is not None and held["status"] is not None:
                    return self._settled(scope, held)
                if claim.until < time.time() and held is None:  # its gateway died: the key is free
                    replaced = await self._replace_script(keys=[record], args=[found, mine, int(RECORD_SECONDS * 1000)])
                    if replaced:
                        return await self._answer(scope, respond, partial(self._release_in_redis, record, mine))
                    continue
            if pause is None:
                break
            await asyncio.sleep(pause)
        raise self._in_progress(scope)

    async def _run_claimed_in_postgres(self, scope: Scope, seconds: float, respond: Respond) -> web.Response:
        for pause in (*SETTLE_SECONDS, None):
            if await self.answers.claim(scope, seconds):
                return await self._answer(scope, respond, partial(self.answers.release, scope))
            held = await self.answers.held(scope)
            if held is not None and _settles(held, scope):
                return self._settled(scope, held)
            if pause is None:
                break
            if held is not None:  # claimed: running, or its answer being stored
                await asyncio.sleep(pause)
            # else released or expired meanwhile: claim again
        raise self._in_progress(scope)

    @staticmethod
    def _settled(scope: Scope, held: Row) -> web.Response:
        """The answer for a key another request settled: its stored answer, or a 422 for another request."""
        if bytes(held["fingerprint"]) != scope.fingerprint:
            raise _reused(scope)
        return _replay(held)

    @staticmethod
    def _in_progress(scope: Scope) -> errors.ApiError:
        return errors.IdempotencyInProgress(
            f"the first request with the {HEADER} {scope.key!r} is still running; retry in a moment"
        )

    async def _complete(self, since: bytes | None) -> bool:
        """Whether Redis holds the record of every key claimed in the last 24 hours. When it has not
        said since when (it is new, or restarted empty), since now; or since ever, if PostgreSQL
        keeps no answer of the last 24 hours that it could have lost."""
        if since is None:
            kept = await self.answers.kept_recently()
            value = f"{time.time():.3f}" if kept else "0"
            earlier = await self._redis.set(self._prefix + COMPLETE_SINCE, value, nx=True, get=True)
            since = earlier if isinstance(earlier, bytes) else value.encode()  # another replica's, or ours
        return time.time() - float(since) > RECORD_SECONDS

    async def _answer(self, scope: Scope, respond: Respond, release: Callable[[], Awaitable[None]]) -> web.Response:
        """Run the request holding the claim; keep its answer, or give the claim back."""
        try:
            response = await respond()
        except errors.ApiError as error:
            if error.status < 500:
                body = error_response(error).body
                assert isinstance(body, bytes)  # an envelope, encoded whole
                self.answers.store(Answer(scope, error.status, {"Content-Type": JSON_CONTENT_TYPE}, body))
            else:
                await release()
            raise
        except BaseException:
            # Cancelled (the route's deadline) or broken: the claim goes back in the background, so
            # the answer never waits on a store that may be what did not answer.
            watch(asyncio.ensure_future(release()), "releasing an idempotency claim")
            raise
        if response.status >= 500 or not isinstance(response.body, bytes):
            await release()
            return response
        headers = {str(name): value for name, value in response.headers.items() if name.lower() not in UNSTORED_HEADERS}
        self.answers.store(Answer(scope, response.status, headers, response.body))
        return response

    async def _release_in_redis(self, record: str, mine: str) -> None:
        try:
            await self._replace_script(keys=[record], args=[mine, "", 0])
        except Exception as exc:  # it expires on its own
            report_failure(exc, "releasing an idempotency claim")
