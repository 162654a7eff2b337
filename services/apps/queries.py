"""Data access for the apps schema. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_returned

DOMAIN_COLUMNS = (
    "id, organization_id, scope, app_id, product_id, domain, type, origin, provider_id, created_at, updated_at,"
    " deleted_at"
)


async def create_domain(cur: Any, organization_id: str, values: dict[str, Any]) -> Row:
    """Store a live domain; a hostname live anywhere else, in any organization, is a 409."""
    with conflict_on_unique(f"the domain {values['domain']} is already in use", "domains_live_hostname_key"):
        return await fetch_returned(
            cur,
            "INSERT INTO domains (organization_id, scope, app_id, product_id, domain, type, origin, provider_id)"
            " VALUES (%(organization_id)s, %(scope)s, %(app_id)s, %(product_id)s, %(domain)s, %(type)s, %(origin)s,"
            f" %(provider_id)s) RETURNING {DOMAIN_COLUMNS}",
            {"organization_id": organization_id, "app_id": None, "product_id": None, "origin": None, **values},
        )


async def resolve_domains(cur: Any, organization_id: str, ids: list[str]) -> list[Row]:
    """The live domains among `ids` that belong to the organization."""
    return await fetch_all(
        cur,
        "SELECT id, domain FROM domains"
        " WHERE organization_id = %s AND id = ANY(%s::uuid[]) AND deleted_at IS NULL ORDER BY domain",
        (organization_id, ids),
    )
