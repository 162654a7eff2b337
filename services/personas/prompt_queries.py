"""Data access for tracked prompts. Every statement names the organization. A prompt's version
counts its text's edits: an UPDATE that changes the text adds one, in the same statement."""

from __future__ import annotations

from typing import Any

from libs.common.cursors import page_of
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_one, fetch_value
from libs.common.errors import Conflict, ValidationFailed
from services.personas.shapes import PROMPT

COLUMNS = PROMPT.columns
TEXT_TAKEN = "this product already tracks a prompt with this text"
# Filters of the list: query field -> SQL condition on its value.
FILTERS = {
    "status": "status = %(status)s",
    "topic_id": "topic_id = %(topic_id)s",
    "persona_id": "persona_id = %(persona_id)s",
    "tag": "tags @> ARRAY[%(tag)s]",
    "engine": "engines @> ARRAY[%(engine)s]",
    "cadence": "cadence = %(cadence)s",
}


async def check_references(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> None:
    """422 for a topic or persona that is not a live one of the product."""
    missing = {}
    for field, table in (("topic_id", "topics"), ("persona_id", "personas")):
        if values.get(field) is None:
            continue
        found = await fetch_value(
            cur,
            f"SELECT 1 FROM {table} WHERE id = %s AND organization_id = %s AND product_id = %s AND deleted_at IS NULL",
            (values[field], organization_id, product_id),
        )
        if found is None:
            missing["topicId" if field == "topic_id" else "personaId"] = f"No live {table[:-1]} of this product."
    if missing:
        raise ValidationFailed(details=missing)


async def create(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> dict[str, Any]:
    await check_references(cur, organization_id, product_id, values)
    with conflict_on_unique(TEXT_TAKEN, "prompts_live_text_key"):
        row = await fetch_one(
            cur,
            "INSERT INTO prompts (organization_id, product_id, text, topic_id, persona_id, suggestion_id, tags,"
            " engines, cadence, samples, status)"
            " VALUES (%(organization_id)s, %(product_id)s, %(text)s, %(topic_id)s, %(persona_id)s, %(suggestion_id)s,"
            " %(tags)s, %(engines)s, %(cadence)s, %(samples)s, %(status)s)"
            f" RETURNING {COLUMNS}",
            {"organization_id": organization_id, "product_id": product_id, "suggestion_id": None, **values},
        )
    assert row is not None
    return PROMPT.of(row)


async def lock(cur: Any, organization_id: str, prompt_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {COLUMNS} FROM prompts WHERE id = %s AND organization_id = %s FOR UPDATE",
        (prompt_id, organization_id),
    )


async def get(cur: Any, organization_id: str, prompt_id: str) -> Row | None:
    return await fetch_one(
        cur, f"SELECT {COLUMNS} FROM prompts WHERE id = %s AND organization_id = %s", (prompt_id, organization_id)
    )


async def update(cur: Any, current: Row, values: dict[str, Any]) -> dict[str, Any]:
    """Change the given fields of a locked prompt; a status change of an archived one is a 409."""
    if "status" in values and current["status"] == "archived":
        raise Conflict("the prompt is archived: unarchive it first")
    if not values:
        return PROMPT.of(current)
    await check_references(cur, str(current["organization_id"]), str(current["product_id"]), values)
    # Only the schema's own field names reach the SQL text.
    assignments = ", ".join(f"{name} = %({name})s" for name in values)
    bump = "version + (text IS DISTINCT FROM %(text)s)::int" if "text" in values else "version"
    with conflict_on_unique(TEXT_TAKEN, "prompts_live_text_key"):
        row = await fetch_one(
            cur,
            f"UPDATE prompts SET {assignments}, version = {bump}, updated_at = clock_timestamp()"
            f" WHERE id = %(id)s RETURNING {COLUMNS}",
            {**values, "id": current["id"]},
        )
    assert row is not None
    return PROMPT.of(row)


async def set_status(cur: Any, current: Row, status: str) -> dict[str, Any]:
    """Archive or unarchive (to `active`) a locked prompt; already so, it is answered as it is."""
    if current["status"] == status or (status == "active" and current["status"] != "archived"):
        return PROMPT.of(current)
    with conflict_on_unique(TEXT_TAKEN, "prompts_live_text_key"):
        row = await fetch_one(
            cur,
            f"UPDATE prompts SET status = %s, updated_at = clock_timestamp() WHERE id = %s RETURNING {COLUMNS}",
            (status, current["id"]),
        )
    assert row is not None
    return PROMPT.of(row)


async def page(cur: Any, organization_id: str, product_id: str, query: dict[str, Any]) -> dict[str, Any]:
    """A page of the product's prompts, newest first, by the query's filters."""
    where = ["organization_id = %(org)s", "product_id = %(product)s"]
    where += [condition for field, condition in FILTERS.items() if field in query]
    after = query.get("cursor")
    if after:
        where.append("(created_at, id) < (%(after_at)s, %(after_id)s)")
    rows = await fetch_all(
        cur,
        f"SELECT {COLUMNS} FROM prompts WHERE {' AND '.join(where)} ORDER BY created_at DESC, id DESC LIMIT %(limit)s",
        {
            **{field: query.get(field) for field in FILTERS},
            "org": organization_id,
            "product": product_id,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
        },
    )
    found, next_cursor = page_of(rows, query["limit"], lambda row: (row["created_at"], str(row["id"])))
    return {"items": [PROMPT.of(row) for row in found], "nextCursor": next_cursor}


async def live_of_product(cur: Any, organization_id: str, product_id: str) -> list[dict[str, Any]]:
    """The product's prompts that are not archived, oldest first."""
    rows = await fetch_all(
        cur,
        f"SELECT {COLUMNS} FROM prompts WHERE organization_id = %s AND product_id = %s AND status <> 'archived'"
        " ORDER BY created_at, id",
        (organization_id, product_id),
    )
    return [PROMPT.of(row) for row in rows]


async def scheduled(cur: Any, cadence: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of every organization's active prompts of `cadence`, by id."""
    rows = await fetch_all(
        cur,
        f"SELECT {COLUMNS} FROM prompts WHERE cadence = %s AND status = 'active'"
        " AND (%s::uuid IS NULL OR id > %s::uuid) ORDER BY id LIMIT %s",
        (cadence, after, after, limit + 1),
    )
    found = [PROMPT.of(row) for row in rows[:limit]]
    return found, found[-1]["id"] if len(rows) > limit else None


async def track_suggestion(cur: Any, organization_id: str, suggestion: dict[str, Any]) -> str:
    """The tracked prompt made from an accepted suggestion (its text, topic and persona), made now
    or before; 409 when the product tracks its text already from elsewhere."""
    existing = await fetch_value(
        cur,
        "SELECT id::text FROM prompts WHERE suggestion_id = %s AND organization_id = %s",
        (suggestion["id"], organization_id),
    )
    if existing is not None:
        return str(existing)
    values = {
        "text": suggestion["prompt"],
        "topic_id": suggestion["topicId"],
        "persona_id": suggestion["personaId"],
        "suggestion_id": suggestion["id"],
        "tags": [],
        "engines": [],
        "cadence": "daily",
        "samples": 1,
        "status": "active",
    }
    prompt = await create(cur, organization_id, suggestion["productId"], values)
    return str(prompt["id"])
