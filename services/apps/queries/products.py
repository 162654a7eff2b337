"""The apps service's copy of the organizations' products (migrations/002_products.sql)."""

from __future__ import annotations

from typing import Any

from libs.common.db import fetch_all
from libs.common.internal_token import Product

Lookup = dict[str, dict[str, Any]]


async def apply_event(cur: Any, organization_id: str, product: dict[str, Any], version: int) -> None:
    """Store the product as an event of `version` describes it, unless a newer version is stored."""
    await cur.execute(
        "INSERT INTO products (id, organization_id, name, slug, deleted_at, version)"
        " VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (id) DO UPDATE SET organization_id = excluded.organization_id, name = excluded.name,"
        " slug = excluded.slug, deleted_at = excluded.deleted_at, version = excluded.version,"
        " updated_at = clock_timestamp()"
        " WHERE products.version < excluded.version",
        (product["id"], organization_id, product["name"], product["slug"], product["deletedAt"], version),
    )


async def learn_checked(cur: Any, organization_id: str, product: Product) -> None:
    """Store a product the gateway checked for a request, if its event has not arrived yet.

    Only then: the gateway's directory caches products for a while, so its copy may be older
    than an event already applied.
    """
    await cur.execute(
        "INSERT INTO products (id, organization_id, name, slug, version) VALUES (%s, %s, %s, %s, 0)"
        " ON CONFLICT (id) DO NOTHING",
        (product.id, organization_id, product.name, product.slug),
    )


async def live_products(cur: Any, organization_id: str, ids: list[str]) -> Lookup:
    """The live products of the organization among `ids`, as `{id, name, slug}`, by id."""
    if not ids:
        return {}
    rows = await fetch_all(
        cur,
        "SELECT id::text, name, slug FROM products"
        " WHERE organization_id = %s AND id = ANY(%s::uuid[]) AND deleted_at IS NULL",
        (organization_id, sorted(set(ids))),
    )
    return {row["id"]: row for row in rows}
