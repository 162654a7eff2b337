"""The Redis streams parts publish their events on (docs/architecture.md, "Events")."""

from __future__ import annotations


def content_events_stream(redis_prefix: str) -> str:
    """Where the content service's relay publishes content.* events."""
    return f"{redis_prefix}events:content"


def identity_events_stream(redis_prefix: str) -> str:
    """Where the gateway's relay publishes product.* events of the identity schema."""
    return f"{redis_prefix}events:identity"
