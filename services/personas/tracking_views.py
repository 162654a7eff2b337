"""Handlers of competitors and tracked prompts, and the internal endpoints the analytics part
reads them by (libs/contract/internal.py)."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Forbidden, NotFound
from libs.common.schemas import load_json, load_query, path_id
from libs.common.state import DB_POOL, caller_of
from services.personas import competitor_queries as competitors
from services.personas import prompt_queries as prompts
from services.personas.tracking_schemas import (
    CompetitorCreate,
    CompetitorUpdate,
    PageQuery,
    PromptCreate,
    PromptListQuery,
    PromptUpdate,
    ScheduledQuery,
)

PAGE_QUERY = PageQuery()
COMPETITOR_CREATE = CompetitorCreate()
COMPETITOR_UPDATE = CompetitorUpdate()
PROMPT_CREATE = PromptCreate()
PROMPT_UPDATE = PromptUpdate()
PROMPT_LIST_QUERY = PromptListQuery()
SCHEDULED_QUERY = ScheduledQuery()


# Competitors.


async def competitors_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/competitors: the product's live competitors, newest first."""
    product = caller_of(request).checked_product(request.match_info["productId"])
    query = load_query(request, PAGE_QUERY)
    async with transaction(request.app[DB_POOL]) as cur:
        body = await competitors.page(cur, caller_of(request).org.id, product.id, query)
    return json_response(body)


async def competitors_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/competitors: a new competitor; 409 when one has the name."""
    product = caller_of(request).checked_product(request.match_info["productId"])
    values = await load_json(request, COMPETITOR_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        competitor = await competitors.create(cur, caller_of(request).org.id, product.id, values)
    return json_response(competitor, status=201)


async def competitors_get(request: web.Request) -> web.Response:
    """GET /api/v1/competitors/{competitorId}: one live competitor."""
    competitor_id = path_id(request, "competitorId", "competitor")
    async with transaction(request.app[DB_POOL]) as cur:
        competitor = await competitors.get(cur, caller_of(request).org.id, competitor_id)
    if competitor is None:
        raise NotFound("competitor not found")
    return json_response(competitor)


async def competitors_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/competitors/{competitorId}: change the supplied fields; a new competitor-set version."""
    competitor_id = path_id(request, "competitorId", "competitor")
    values = await load_json(request, COMPETITOR_UPDATE)
    async with transaction(request.app[DB_POOL]) as cur:
        competitor = await competitors.update(cur, caller_of(request).org.id, competitor_id, values)
    if competitor is None:
        raise NotFound("competitor not found")
    return json_response(competitor)


async def competitors_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/competitors/{competitorId}: soft-delete it, freeing its name; answers it."""
    competitor_id = path_id(request, "competitorId", "competitor")
    async with transaction(request.app[DB_POOL]) as cur:
        competitor = await competitors.delete(cur, caller_of(request).org.id, competitor_id)
    if competitor is None:
        raise NotFound("competitor not found")
    return json_response(competitor)


# Prompts.


async def prompts_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/prompts: the product's tracked prompts, newest first, filtered."""
    product = caller_of(request).checked_product(request.match_info["productId"])
    query = load_query(request, PROMPT_LIST_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        body = await prompts.page(cur, caller_of(request).org.id, product.id, query)
    return json_response(body)


async def prompts_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/prompts: track a prompt; 409 when the product tracks its text."""
    product = caller_of(request).checked_product(request.match_info["productId"])
    values = await load_json(request, PROMPT_CREATE)
    async with transaction(request.app[DB_POOL]) as cur:
        prompt = await prompts.create(cur, caller_of(request).org.id, product.id, values)
    return json_response(prompt, status=201)


async def prompts_get(request: web.Request) -> web.Response:
    """GET /api/v1/prompts/{promptId}: one prompt, archived ones included."""
    prompt_id = path_id(request, "promptId", "prompt")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await prompts.get(cur, caller_of(request).org.id, prompt_id)
    if row is None:
        raise NotFound("prompt not found")
    return json_response(prompts.view(row))


async def prompts_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/prompts/{promptId}: change the supplied fields; a new text is a new version."""
    prompt_id = path_id(request, "promptId", "prompt")
    values = await load_json(request, PROMPT_UPDATE)
    async with transaction(request.app[DB_POOL]) as cur:
        current = await prompts.lock(cur, caller_of(request).org.id, prompt_id)
        if current is None:
            raise NotFound("prompt not found")
        prompt = await prompts.update(cur, current, values)
    return json_response(prompt)


async def _set_status(request: web.Request, status: str) -> web.Response:
    prompt_id = path_id(request, "promptId", "prompt")
    async with transaction(request.app[DB_POOL]) as cur:
        current = await prompts.lock(cur, caller_of(request).org.id, prompt_id)
        if current is None:
            raise NotFound("prompt not found")
        prompt = await prompts.set_status(cur, current, status)
    return json_response(prompt)


async def prompts_archive(request: web.Request) -> web.Response:
    """POST /api/v1/prompts/{promptId}/archive: stop running it and free its text; answers it."""
    return await _set_status(request, "archived")


async def prompts_unarchive(request: web.Request) -> web.Response:
    """POST /api/v1/prompts/{promptId}/unarchive: make an archived prompt active again; 409 when its
    text is tracked again meanwhile."""
    return await _set_status(request, "active")


# Internal endpoints (analytics).


async def internal_competitor_set(request: web.Request) -> web.Response:
    """GET /internal/products/{productId}/competitors: the live competitors and the set's version."""
    product_id = path_id(request, "productId", "product")
    async with transaction(request.app[DB_POOL]) as cur:
        body = await competitors.brand_set(cur, caller_of(request).org.id, product_id)
    return json_response(body)


async def internal_product_prompts(request: web.Request) -> web.Response:
    """GET /internal/products/{productId}/prompts: the product's prompts not archived, oldest first."""
    product_id = path_id(request, "productId", "product")
    async with cursor(request.app[DB_POOL]) as cur:
        items = await prompts.live_of_product(cur, caller_of(request).org.id, product_id)
    return json_response({"items": items})


async def internal_scheduled_prompts(request: web.Request) -> web.Response:
    """GET /internal/prompts/scheduled?cadence=&after=&limit=: every organization's active prompts of
    a cadence, by id, for the analytics part's scheduler (a service caller only)."""
    if caller_of(request).principal_kind != "service":
        raise Forbidden("the scheduled prompts are read by services only")
    query = load_query(request, SCHEDULED_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        items, after = await prompts.scheduled(cur, query["cadence"], query.get("after"), query["limit"])
    return json_response({"items": items, "next": after})


async def internal_prompt_get(request: web.Request) -> web.Response:
    """GET /internal/prompts/{promptId}: a prompt of the caller's organization, as its answers name it."""
    prompt_id = path_id(request, "promptId", "prompt")
    async with cursor(request.app[DB_POOL]) as cur:
        row = await prompts.get(cur, caller_of(request).org.id, prompt_id)
    if row is None:
        raise NotFound("prompt not found")
    return json_response(prompts.view(row))
