"""Creating a domain: the one place that stores a hostname and registers it at the edge."""

from __future__ import annotations

import secrets
from typing import Any

from services.apps.edge import EdgeProvider
from services.apps.queries import domains as queries


def new_token() -> str:
    """A domain's verification token: 256 random bits, hex."""
    return secrets.token_hex(32)


async def register_domain(
    cur: Any, edge: EdgeProvider, organization_id: str, values: dict[str, Any], claim_days: int | None = None
) -> dict[str, Any]:
    """Store a live domain and register it with the edge provider, inside the caller's transaction.

    With `claim_days` the domain is an unverified claim that lapses after that many days unless
    proven (services/apps/claims.py); without, the caller vouches for the hostname (an operator's
    command, the demo seed, a proven takeover) and it is verified at once. `values` may carry the
    verification token (a proven challenge's); otherwise a new one is made.

    The row is written first, so the unique index has decided who owns the hostname before the
    provider is asked; if the provider fails, the transaction rolls the row back. An app's domain
    is announced as `app.domain.created`, verified or not (`app.domain.verified` is for a claim
    proven later, services/apps/claims.py).
    """
    values = {"verification_token": new_token(), **values, "claim_days": claim_days}
    row = await queries.insert_domain(cur, organization_id, values)
    provider_id = await edge.register(values["domain"])
    domain = await queries.set_provider_id(cur, row["id"], provider_id)
    await queries.announce(cur, "created", organization_id, domain)
    return domain
