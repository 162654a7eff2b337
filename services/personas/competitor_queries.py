"""Data access for competitors. Every statement names the organization; a write bumps the product's
competitor-set version by a trigger (migrations/330_competitors_prompts.sql), read back here."""

from __future__ import annotations

from typing import Any

from libs.common.cursors import page_of
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_value
from libs.contract import internal_bodies as b
from services.personas.shapes import COMPETITOR

COLUMNS = COMPETITOR.columns
NAME_TAKEN = "another competitor of this product already has this name"


async def set_version(cur: Any, product_id: str) -> int:
    """The product's competitor-set version: 0 before its first competitor."""
    version = await fetch_value(cur, "SELECT version FROM competitor_sets WHERE product_id = %s", (product_id,))
    return int(version or 0)


def view(row: Row, version: int) -> dict[str, Any]:
    return {**COMPETITOR.of(row), "competitorSetVersion": version}


async def _answer(cur: Any, row: Row | None) -> dict[str, Any] | None:
    return None if row is None else view(row, await set_version(cur, str(row["product_id"])))


async def create(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> dict[str, Any]:
    with conflict_on_unique(NAME_TAKEN, "competitors_active_name_key"):
        row = await fetch_one(
            cur,
            "INSERT INTO competitors (organization_id, product_id, name, aliases, domains)"
            " VALUES (%(organization_id)s, %(product_id)s, %(name)s, %(aliases)s, %(domains)s)"
            f" RETURNING {COLUMNS}",
            {"organization_id": organization_id, "product_id": product_id, **values},
        )
    answer = await _answer(cur, row)
    assert answer is not None
    return answer


async def get(cur: Any, organization_id: str, competitor_id: str) -> dict[str, Any] | None:
    row = await fetch_one(
        cur,
        f"SELECT {COLUMNS} FROM competitors WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (competitor_id, organization_id),
    )
    return await _answer(cur, row)


async def update(cur: Any, organization_id: str, competitor_id: str, values: dict[str, Any]) -> dict[str, Any] | None:
    if not values:
        return await get(cur, organization_id, competitor_id)
    # Only the schema's field names (name, aliases, domains) reach the SQL text.
    assignments = ", ".join(f"{name} = %({name})s" for name in values)
    with conflict_on_unique(NAME_TAKEN, "competitors_active_name_key"):
        row = await fetch_one(
            cur,
            f"UPDATE competitors SET {assignments}, updated_at = clock_timestamp()"
            " WHERE id = %(id)s AND organization_id = %(organization_id)s AND deleted_at IS NULL"
            f" RETURNING {COLUMNS}",
            {**values, "id": competitor_id, "organization_id": organization_id},
        )
    return await _answer(cur, row)


async def delete(cur: Any, organization_id: str, competitor_id: str) -> dict[str, Any] | None:
    """Soft-delete a live competitor, which frees its name."""
    row = await fetch_one(
        cur,
        "UPDATE competitors SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        f" RETURNING {COLUMNS}",
        (competitor_id, organization_id),
    )
    return await _answer(cur, row)


async def page(cur: Any, organization_id: str, product_id: str, query: dict[str, Any]) -> dict[str, Any]:
    """A page of the product's live competitors, newest first."""
    after = query.get("cursor")
    rows = await fetch_all(
        cur,
        f"SELECT {COLUMNS} FROM competitors WHERE organization_id = %(org)s AND product_id = %(product)s"
        " AND deleted_at IS NULL"
        + (" AND (created_at, id) < (%(after_at)s, %(after_id)s)" if after else "")
        + " ORDER BY created_at DESC, id DESC LIMIT %(limit)s",
        {
            "org": organization_id,
            "product": product_id,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
        },
    )
    version = await set_version(cur, product_id)
    found, next_cursor = page_of(rows, query["limit"], lambda row: (row["created_at"], str(row["id"])))
    return {"items": [view(row, version) for row in found], "nextCursor": next_cursor, "competitorSetVersion": version}


async def brand_set(cur: Any, organization_id: str, product_id: str) -> b.CompetitorSet:
    """What the analysis of answers needs: the live competitors (id, name, aliases, domains) and
    the set's version, read in one snapshot (the caller's transaction)."""
    rows = await fetch_all(
        cur,
        "SELECT id::text, name, aliases, domains FROM competitors"
        " WHERE organization_id = %s AND product_id = %s AND deleted_at IS NULL ORDER BY created_at, id",
        (organization_id, product_id),
    )
    competitors: list[b.Competitor] = [
        {"id": row["id"], "name": row["name"], "aliases": row["aliases"], "domains": row["domains"]} for row in rows
    ]
    return {"version": await set_version(cur, product_id), "competitors": competitors}
