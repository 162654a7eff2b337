"""The Redis streams parts publish their events on (docs/architecture.md, "Events")."""

from __future__ import annotations


def content_events_stream(redis_prefix: str) -> str:
    """Where the content service's relay publishes content.* events."""
    return f"{redis_prefix}events:content"


def identity_events_stream(redis_prefix: str) -> str:
    """Where the gateway's relay publishes product.* events of the identity schema."""
    return f"{redis_prefix}events:identity"


def webhook_events_stream(redis_prefix: str, part: str) -> str:
    """Where a part's relay publishes the webhook events of its `webhook_outbox` (libs/common/webhook_outbox.py)."""
    return f"{redis_prefix}events:webhooks:{part}"


def audit_stream(redis_prefix: str) -> str:
    """Where the gateway (and the operator's commands) publish audit records, for the events service."""
    return f"{redis_prefix}events:audit"


def edge_requests_stream(redis_prefix: str) -> str:
    """Where the App edge appends every request it answered on an App's domain, for AI traffic to
    record (docs/architecture.md, "The edge")."""
    return f"{redis_prefix}edge.requests"
