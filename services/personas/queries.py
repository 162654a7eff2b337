"""Data access for personas, topics and prompt suggestions. Plain async functions, cursor first.

Every statement names the organization, so a row of another organization is never read or
written, whatever id a caller sends. Answers leave the database as JSON text in their API
shape (services/personas/shapes.py). A write of a persona announces it (`persona.updated`, the
persona as the API shows it) in the caller's transaction.
"""

from __future__ import annotations

from typing import Any

from libs.common import webhook_outbox
from libs.common.db import Row, conflict_on_unique, fetch_all, fetch_value
from libs.common.encoding import loads
from services.personas.shapes import PERSONA_JSON, SUGGESTION_JSON, TOPIC_JSON

PERSONA_NAME_TAKEN = "another active persona of this product already has this name"
TOPIC_NAME_TAKEN = "another topic of this product already has this name"


async def _page(
    cur: Any,
    key: str,
    table: str,
    row_json: str,
    organization_id: str,
    product_id: str,
    limit: int,
    offset: int,
    filters: dict[str, Any] | None = None,
) -> bytes:
    """One page of a product's live rows in creation order and how many rows match in all, as the
    JSON `{"<key>": [...], "total": n}`.

    `filters` maps a column to the value it must equal; its keys are a schema's field names,
    never a caller's text.
    """
    params = {"organization_id": organization_id, "product_id": product_id, **(filters or {})}
    where = " AND ".join([*(f"{column} = %({column})s" for column in params), "deleted_at IS NULL"])
    page: str = await fetch_value(
        cur,
        f"SELECT COALESCE(json_agg({row_json} ORDER BY created_at, id), '[]')::text"
        f" FROM (SELECT * FROM {table} WHERE {where}"
        " ORDER BY created_at, id LIMIT %(limit)s OFFSET %(offset)s) page",
        {**params, "limit": limit, "offset": offset},
    )
    total = await fetch_value(cur, f"SELECT count(*) FROM {table} WHERE {where}", params)
    return f'{{"{key}":{page},"total":{total}}}'.encode()


# Personas.


async def _announce(cur: Any, organization_id: str, persona: str | None) -> None:
    """Queue `persona.updated` for a persona just written (created, changed or deleted)."""
    if persona is not None:
        data = loads(persona)
        await webhook_outbox.record(cur, "persona.updated", organization_id, f"persona:{data['id']}", data)


async def list_personas(cur: Any, organization_id: str, product_id: str, limit: int, offset: int) -> bytes:
    return await _page(cur, "personas", "personas", PERSONA_JSON, organization_id, product_id, limit, offset)


async def create_persona(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> str:
    with conflict_on_unique(PERSONA_NAME_TAKEN, "personas_active_name_key"):
        persona: str = await fetch_value(
            cur,
            "INSERT INTO personas (organization_id, product_id, name, description, system_prompt)"
            " VALUES (%(organization_id)s, %(product_id)s, %(name)s, %(description)s, %(system_prompt)s)"
            f" RETURNING {PERSONA_JSON}::text",
            {"organization_id": organization_id, "product_id": product_id, **values},
        )
    await _announce(cur, organization_id, persona)
    return persona


async def get_persona(cur: Any, organization_id: str, persona_id: str) -> str | None:
    persona: str | None = await fetch_value(
        cur,
        f"SELECT {PERSONA_JSON}::text FROM personas WHERE id = %s AND organization_id = %s AND deleted_at IS NULL",
        (persona_id, organization_id),
    )
    return persona


async def lock_persona(cur: Any, organization_id: str, persona_id: str) -> str | None:
    """A live persona, locked for the caller's transaction (a write checking `If-Match` takes it first)."""
    persona: str | None = await fetch_value(
        cur,
        f"SELECT {PERSONA_JSON}::text FROM personas WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        " FOR UPDATE",
        (persona_id, organization_id),
    )
    return persona


async def update_persona(cur: Any, organization_id: str, persona_id: str, values: dict[str, Any]) -> str | None:
    """Change the given fields of a live persona; with no fields, the persona as it is."""
    if not values:
        return await get_persona(cur, organization_id, persona_id)
    # Only the schema's own field names (name, description, system_prompt) reach the SQL text.
    assignments = ", ".join(f"{name} = %({name})s" for name in values)
    with conflict_on_unique(PERSONA_NAME_TAKEN, "personas_active_name_key"):
        persona: str | None = await fetch_value(
            cur,
            f"UPDATE personas SET {assignments}, updated_at = clock_timestamp()"
            " WHERE id = %(id)s AND organization_id = %(organization_id)s AND deleted_at IS NULL"
            f" RETURNING {PERSONA_JSON}::text",
            {"organization_id": organization_id, "id": persona_id, **values},
        )
    await _announce(cur, organization_id, persona)
    return persona


async def delete_persona(cur: Any, organization_id: str, persona_id: str) -> str | None:
    """Soft-delete a live persona, which frees its name."""
    persona: str | None = await fetch_value(
        cur,
        "UPDATE personas SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        f" RETURNING {PERSONA_JSON}::text",
        (persona_id, organization_id),
    )
    await _announce(cur, organization_id, persona)
    return persona


async def active_personas(cur: Any, organization_id: str, product_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        "SELECT id::text, name, description, system_prompt FROM personas"
        " WHERE organization_id = %s AND product_id = %s AND deleted_at IS NULL ORDER BY created_at, id",
        (organization_id, product_id),
    )


# Topics.


async def list_topics(cur: Any, organization_id: str, product_id: str, limit: int, offset: int) -> bytes:
    return await _page(cur, "topics", "topics", TOPIC_JSON, organization_id, product_id, limit, offset)


async def create_topic(cur: Any, organization_id: str, product_id: str, values: dict[str, Any]) -> str:
    with conflict_on_unique(TOPIC_NAME_TAKEN, "topics_active_name_key"):
        topic: str = await fetch_value(
            cur,
            "INSERT INTO topics (organization_id, product_id, name, description)"
            " VALUES (%(organization_id)s, %(product_id)s, %(name)s, %(description)s)"
            f" RETURNING {TOPIC_JSON}::text",
            {"organization_id": organization_id, "product_id": product_id, **values},
        )
    return topic


async def active_topics(cur: Any, organization_id: str, product_id: str) -> list[Row]:
    return await fetch_all(
        cur,
        "SELECT id::text, name, description FROM topics"
        " WHERE organization_id = %s AND product_id = %s AND deleted_at IS NULL ORDER BY created_at, id",
        (organization_id, product_id),
    )


# Prompt suggestions.


async def list_suggestions(
    cur: Any, organization_id: str, product_id: str, filters: dict[str, Any], limit: int, offset: int
) -> bytes:
    """`filters`: optional `topic_id` and `status`."""
    return await _page(
        cur,
        "suggestions",
        "prompt_suggestions",
        SUGGESTION_JSON,
        organization_id,
        product_id,
        limit,
        offset,
        filters,
    )


async def review_suggestion(cur: Any, organization_id: str, suggestion_id: str, status: str) -> str | None:
    suggestion: str | None = await fetch_value(
        cur,
        "UPDATE prompt_suggestions SET status = %s, updated_at = clock_timestamp()"
        " WHERE id = %s AND organization_id = %s AND deleted_at IS NULL"
        f" RETURNING {SUGGESTION_JSON}::text",
        (status, suggestion_id, organization_id),
    )
    return suggestion


async def lock_product_suggestions(cur: Any, product_id: str) -> None:
    """Wait for, then hold until the transaction ends, the product's regeneration lock."""
    await cur.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"prompt-suggestions:{product_id}",))


async def retire_pending_suggestions(cur: Any, organization_id: str, product_id: str) -> None:
    """Soft-delete the product's pending suggestions; reviewed (accepted, rejected) ones stay."""
    await cur.execute(
        "UPDATE prompt_suggestions SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()"
        " WHERE organization_id = %s AND product_id = %s AND status = 'pending' AND deleted_at IS NULL",
        (organization_id, product_id),
    )


async def insert_suggestions(
    cur: Any, organization_id: str, product_id: str, rows: list[tuple[str, str | None, str]]
) -> list[str]:
    """Store (topic id, persona id, prompt) rows as pending suggestions, in order; a prompt its topic
    already holds (reviewed, or twice in `rows`) is skipped. Returns the ids stored."""
    if not rows:
        return []
    topic_ids, persona_ids, prompts = (list(column) for column in zip(*rows, strict=True))
    inserted = await fetch_all(
        cur,
        "INSERT INTO prompt_suggestions (organization_id, product_id, topic_id, persona_id, prompt)"
        " SELECT %s, %s, topic_id, persona_id, prompt"
        " FROM unnest(%s::uuid[], %s::uuid[], %s::text[]) WITH ORDINALITY AS row (topic_id, persona_id, prompt, n)"
        " ORDER BY n"
        " ON CONFLICT (topic_id, lower(prompt)) WHERE deleted_at IS NULL DO NOTHING RETURNING id",
        (organization_id, product_id, topic_ids, persona_ids, prompts),
    )
    return [str(row["id"]) for row in inserted]
