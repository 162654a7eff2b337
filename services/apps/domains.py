"""Creating a domain: the one place that stores a hostname and registers it at the edge."""

from __future__ import annotations

from typing import Any

from services.apps.edge import EdgeProvider
from services.apps.queries import domains as queries


async def register_domain(cur: Any, edge: EdgeProvider, organization_id: str, values: dict[str, Any]) -> dict[str, Any]:
    """Store a live domain and register it with the edge provider, inside the caller's transaction.

    The row is written first, so the unique index has decided who owns the hostname before the
    provider is asked; if the provider fails, the transaction rolls the row back.
    """
    row = await queries.insert_domain(cur, organization_id, values)
    provider_id = await edge.register(values["domain"])
    return await queries.set_provider_id(cur, row["id"], provider_id)
