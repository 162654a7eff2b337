"""Data access for products and their brands, in the identity schema. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from gateway.shapes import PRODUCT, PRODUCT_DETAIL
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_returned
from libs.common.errors import NotFound
from libs.contract.validators import is_uuid


async def create_product(cur: Any, organization_id: str, name: str, slug: str, product_id: str | None = None) -> Row:
    with conflict_on_unique(f"product {slug!r} already exists in this organization"):
        row = await fetch_returned(
            cur,
            "INSERT INTO products (id, organization_id, name, slug)"
            " VALUES (COALESCE(%s, gen_random_uuid()), %s, %s, %s)"
            " RETURNING id, organization_id, name, slug, created_at",
            (product_id, organization_id, name, slug),
        )
    return row


async def delete_product(cur: Any, organization_id: str, id_or_slug: str) -> Row:
    """Soft-delete a live product of the organization, named by id or slug."""
    column = "id" if is_uuid(id_or_slug) else "slug"
    row = await fetch_one(
        cur,
        "UPDATE products SET deleted_at = clock_timestamp(), updated_at = now()"
        f" WHERE organization_id = %s AND {column} = %s AND deleted_at IS NULL"
        " RETURNING id, organization_id, name, slug, deleted_at",
        (organization_id, id_or_slug),
    )
    if row is None:
        raise NotFound(f"no live product {id_or_slug!r} in this organization")
    return row


async def find_product(cur: Any, product_id: str) -> Row | None:
    return await fetch_one(
        cur,
        "SELECT id, organization_id, name, slug FROM products WHERE id = %s AND deleted_at IS NULL",
        (product_id,),
    )


async def list_products(cur: Any, organization_id: str) -> list[Row]:
    """The organization's live products by name."""
    return await fetch_all(
        cur,
        f"SELECT {PRODUCT.columns} FROM products WHERE organization_id = %s AND deleted_at IS NULL ORDER BY name, id",
        (organization_id,),
    )


BRAND_COLUMNS = PRODUCT_DETAIL.columns


async def product_brand(cur: Any, organization_id: str, product_id: str) -> Row | None:
    """A live product of the organization with its brand columns."""
    return await fetch_one(
        cur,
        f"SELECT {BRAND_COLUMNS} FROM products WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (product_id, organization_id),
    )


async def update_product_brand(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> Row | None:
    """Change the given brand fields (`name`, `aliases`, `domains`) of a live product."""
    columns = {"name": "brand_name", "aliases": "brand_aliases", "domains": "owned_domains"}
    if not values:
        return await product_brand(cur, organization_id, product_id)
    # Only the schema's own field names reach the SQL text, through `columns`.
    assignments = ", ".join(f"{columns[field]} = %({field})s" for field in values)
    return await fetch_one(
        cur,
        f"UPDATE products SET {assignments}, updated_at = clock_timestamp()"
        " WHERE id = %(id)s AND organization_id = %(organization_id)s AND deleted_at IS NULL"
        f" RETURNING {BRAND_COLUMNS}",
        {**values, "id": product_id, "organization_id": organization_id},
    )


async def list_organization_products(cur: Any, organization_id: str) -> list[Row]:
    """An organization's live products."""
    return await fetch_all(
        cur,
        "SELECT id, slug, name, created_at FROM products"
        " WHERE organization_id = %s AND deleted_at IS NULL ORDER BY slug, id",
        (organization_id,),
    )
