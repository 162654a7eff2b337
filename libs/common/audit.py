"""Audit records: who did what, when, from where, and how it ended (docs/architecture.md, "Audit trail").

The gateway (every changing request, refused credentials, failed sign-ins) and the operator's
commands publish records to the audit stream; the events service stores them and serves them
as `GET /api/v1/audit-events`.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from libs.common.encoding import dumps
from libs.common.events import audit_stream
from libs.common.metrics import REDIS_ERRORS

log = logging.getLogger(__name__)

# Records of a person's sign-ins (with the address they came from): only for callers holding
# `signins:read` (owners and admins); every other record is for anyone holding `logs:read`.
BURST_ACTION = "account.sign_in_failures"  # a burst of failed sign-ins to one account
SIGN_IN_ACTIONS = ("session.sign_in", BURST_ACTION)
SIGN_INS_SCOPE = "signins:read"

# The stream keeps about this many records; the events service reads them within a second.
STREAM_MAX_ENTRIES = 1_000_000


@dataclass
class AuditRecord:
    organization_id: str | None
    # "api_key", "bearer", "session", "operator" or "anonymous"; a user id or key id; an email or key prefix.
    actor_kind: str
    actor_id: str | None
    actor_label: str | None
    action: str
    result: str  # "success" or "failure"
    resource_type: str | None = None
    resource_id: str | None = None
    method: str | None = None
    path: str | None = None
    client_address: str | None = None
    request_id: str | None = None
    status: int | None = None
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    occurred_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())


async def publish(redis: aioredis.Redis, redis_prefix: str, record: AuditRecord) -> None:
    """Add the record to the audit stream. A Redis that does not answer loses it, counted and
    logged with the record, so the request it describes is not refused for it."""
    try:
        await redis.xadd(
            audit_stream(redis_prefix), {"record": dumps(asdict(record))}, maxlen=STREAM_MAX_ENTRIES, approximate=True
        )
    except RedisError:
        REDIS_ERRORS.labels("audit_publish").inc()
        # Redis being away is logged once by its connections; the record is kept here, in the log.
        log.info("audit record not published: %s", asdict(record))
