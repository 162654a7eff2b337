"""Handlers of the personas service, grouped by resource.

A product id in a request was checked by the gateway against the caller's organization; the
product it found (id, name, slug) arrives in the internal token.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiopg import Cursor

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response, loads, raw_json_response
from libs.common.errors import NotFound
from libs.common.etags import IF_MATCH, check_if_match, record_etag, versioned_response
from libs.common.handlers import of_product, owned
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, caller_of
from services.personas import prompt_queries, queries
from services.personas.regeneration import regenerate
from services.personas.schemas import (
    PageQuery,
    PersonaCreate,
    PersonaUpdate,
    RegenerateRequest,
    SuggestionListQuery,
    SuggestionReview,
    TopicCreate,
)
from services.personas.state import GENERATOR

PAGE_QUERY = PageQuery()
PERSONA_CREATE = PersonaCreate()
PERSONA_UPDATE = PersonaUpdate()
TOPIC_CREATE = TopicCreate()
SUGGESTION_LIST_QUERY = SuggestionListQuery()
SUGGESTION_REVIEW = SuggestionReview()
REGENERATE_REQUEST = RegenerateRequest()


# Personas.


def _paged(listing: Callable[[Cursor, str, str, int, int], Awaitable[bytes]]) -> Callable[..., Awaitable[bytes]]:
    """`listing` of a product's resources, a page (`limit`, `offset`) of the loaded query at a time."""

    async def page(cur: Cursor, organization_id: str, product_id: str, query: dict[str, Any]) -> bytes:
        return await listing(cur, organization_id, product_id, query["limit"], query["offset"])

    return page


async def personas_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/personas: the product's active personas, oldest first."""
    return raw_json_response(await of_product(request, _paged(queries.list_personas), query=PAGE_QUERY))


async def personas_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/personas: a new persona; 409 when an active one has the name."""
    persona = await of_product(request, queries.create_persona, body=PERSONA_CREATE)
    return _versioned(request, persona, status=201)


def _versioned(request: web.Request, persona: str, status: int = 200) -> web.Response:
    """A persona's answer with its ETag (its id and `updatedAt`); a read holding it is a 304."""
    return versioned_response(request, (data := loads(persona)), record_etag(data), status)


async def personas_get(request: web.Request) -> web.Response:
    """GET /api/v1/personas/{personaId}: one active persona, with its ETag."""
    return _versioned(request, await owned(request, "personaId", "persona", queries.get_persona))


async def _check_version(request: web.Request, cur: Cursor, organization_id: str, persona_id: str) -> None:
    """With `If-Match`, 412 unless it names the persona's current version, checked under its row lock
    so no write slips in between."""
    if IF_MATCH in request.headers:
        current = await queries.lock_persona(cur, organization_id, persona_id)
        if current is None:
            raise NotFound("persona not found")
        check_if_match(request, record_etag(loads(current)))


async def personas_update(request: web.Request) -> web.Response:
    """PUT /api/v1/personas/{personaId}: change the supplied fields (of the version `If-Match` names);
    409 when the name is taken."""
    persona_id = path_id(request, "personaId", "persona")
    values = await load_json(request, PERSONA_UPDATE)
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        await _check_version(request, cur, organization_id, persona_id)
        persona = await queries.update_persona(cur, organization_id, persona_id, values)
    if persona is None:
        raise NotFound("persona not found")
    return _versioned(request, persona)


async def personas_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/personas/{personaId}: soft-delete the persona, freeing its name (if it is still the
    version `If-Match` names); answers it."""
    persona_id = path_id(request, "personaId", "persona")
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        await _check_version(request, cur, organization_id, persona_id)
        persona = await queries.delete_persona(cur, organization_id, persona_id)
    if persona is None:
        raise NotFound("persona not found")
    return _versioned(request, persona)


# Topics.


async def topics_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/topics: the product's active topics, oldest first."""
    return raw_json_response(await of_product(request, _paged(queries.list_topics), query=PAGE_QUERY))


async def topics_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/topics: a new topic; 409 when the product has one of that name."""
    topic = await of_product(request, queries.create_topic, body=TOPIC_CREATE)
    return raw_json_response(topic.encode(), status=201)


# Prompt suggestions.


async def prompt_suggestions_list(request: web.Request) -> web.Response:
    """GET /api/v1/prompt-suggestions?productId=: the product's live suggestions, by topic and status."""
    query = load_query(request, SUGGESTION_LIST_QUERY)
    product = caller_of(request).checked_product(query.pop("product_id"))
    limit, offset = query.pop("limit"), query.pop("offset")
    async with cursor(request.app[DB_POOL]) as cur:
        body = await queries.list_suggestions(cur, caller_of(request).org.id, product.id, query, limit, offset)
    return raw_json_response(body)


async def prompt_suggestions_review(request: web.Request) -> web.Response:
    """PATCH /api/v1/prompt-suggestions/{suggestionId}: accept, reject or reopen a suggestion."""
    suggestion_id = path_id(request, "suggestionId", "prompt suggestion")
    data = await load_json(request, SUGGESTION_REVIEW)
    organization_id = caller_of(request).org.id
    async with transaction(request.app[DB_POOL]) as cur:
        suggestion = await queries.review_suggestion(cur, organization_id, suggestion_id, data["status"])
        if suggestion is None:
            raise NotFound("prompt suggestion not found")
        if not data["track"]:
            return raw_json_response(suggestion.encode())
        reviewed = loads(suggestion)
        prompt_id = await prompt_queries.track_suggestion(cur, organization_id, reviewed)
    return json_response({**reviewed, "trackedPromptId": prompt_id})


async def prompt_suggestions_regenerate(request: web.Request) -> web.Response:
    """POST /api/v1/prompt-suggestions/regenerate: replace the product's pending suggestions, all or nothing."""
    data = await load_json(request, REGENERATE_REQUEST)
    product = caller_of(request).checked_product(data["product_id"])
    ids = await regenerate(request.app[DB_POOL], request.app[GENERATOR], caller_of(request).org.id, product)
    return json_response({"count": len(ids), "ids": ids})
