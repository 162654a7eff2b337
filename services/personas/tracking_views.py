"""Handlers of competitors and tracked prompts, and the internal endpoints the analytics part
reads them by (libs/contract/internal.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from aiohttp import web
from marshmallow import Schema

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.errors import Forbidden
from libs.common.handlers import of_product, owned
from libs.common.schemas import load_endpoint_query, path_id
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b
from services.personas import competitor_queries as competitors
from services.personas import prompt_queries as prompts
from services.personas.shapes import PROMPT
from services.personas.tracking_schemas import (
    CompetitorCreate,
    CompetitorUpdate,
    PageQuery,
    PromptCreate,
    PromptListQuery,
    PromptUpdate,
)

PAGE_QUERY = PageQuery()
COMPETITOR_CREATE = CompetitorCreate()
COMPETITOR_UPDATE = CompetitorUpdate()
PROMPT_CREATE = PromptCreate()
PROMPT_UPDATE = PromptUpdate()
PROMPT_LIST_QUERY = PromptListQuery()


# Competitors.


async def competitors_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/competitors: the product's live competitors, newest first."""
    return json_response(await of_product(request, competitors.page, query=PAGE_QUERY, transactional=True))


async def competitors_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/competitors: a new competitor; 409 when one has the name."""
    competitor = await of_product(request, competitors.create, body=COMPETITOR_CREATE, transactional=True)
    return json_response(competitor, status=201)


async def competitors_get(request: web.Request) -> web.Response:
    """GET /api/v1/competitors/{competitorId}: one live competitor."""
    return json_response(await owned(request, "competitorId", "competitor", competitors.get, transactional=True))


async def competitors_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/competitors/{competitorId}: change the supplied fields; a new competitor-set version."""
    competitor = await owned(
        request, "competitorId", "competitor", competitors.update, body=COMPETITOR_UPDATE, transactional=True
    )
    return json_response(competitor)


async def competitors_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/competitors/{competitorId}: soft-delete it, freeing its name; answers it."""
    return json_response(await owned(request, "competitorId", "competitor", competitors.delete, transactional=True))


# Prompts.


async def prompts_list(request: web.Request) -> web.Response:
    """GET /api/v1/products/{productId}/prompts: the product's tracked prompts, newest first, filtered."""
    return json_response(await of_product(request, prompts.page, query=PROMPT_LIST_QUERY))


async def prompts_create(request: web.Request) -> web.Response:
    """POST /api/v1/products/{productId}/prompts: track a prompt; 409 when the product tracks its text."""
    prompt = await of_product(request, prompts.create, body=PROMPT_CREATE, transactional=True)
    return json_response(prompt, status=201)


async def _prompt(request: web.Request) -> web.Response:
    """A prompt of the caller's organization, archived ones included, as answers name it."""
    return json_response(PROMPT.of(await owned(request, "promptId", "prompt", prompts.get)))


async def prompts_get(request: web.Request) -> web.Response:
    """GET /api/v1/prompts/{promptId}: one prompt, archived ones included."""
    return await _prompt(request)


async def _change_prompt(
    request: web.Request, change: Callable[..., Awaitable[dict[str, Any]]], body: Schema | None = None
) -> web.Response:
    """`change(cur, prompt, *values)` on the path's prompt, locked until the change is written; answers it."""

    async def locked(cur: Any, organization_id: str, prompt_id: str, *values: Any) -> dict[str, Any] | None:
        current = await prompts.lock(cur, organization_id, prompt_id)
        return None if current is None else await change(cur, current, *values)

    return json_response(await owned(request, "promptId", "prompt", locked, body=body, transactional=True))


async def prompts_update(request: web.Request) -> web.Response:
    """PATCH /api/v1/prompts/{promptId}: change the supplied fields; a new text is a new version."""
    return await _change_prompt(request, prompts.update, PROMPT_UPDATE)


async def _set_status(request: web.Request, status: str) -> web.Response:
    return await _change_prompt(request, partial(prompts.set_status, status=status))


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
        answer = await competitors.brand_set(cur, caller_of(request).org.id, product_id)
    return json_response(answer)


async def internal_product_prompts(request: web.Request) -> web.Response:
    """GET /internal/products/{productId}/prompts: the product's prompts not archived, oldest first."""
    product_id = path_id(request, "productId", "product")
    async with cursor(request.app[DB_POOL]) as cur:
        items = await prompts.live_of_product(cur, caller_of(request).org.id, product_id)
    answer: b.Prompts = {"items": items}
    return json_response(answer)


async def internal_scheduled_prompts(request: web.Request) -> web.Response:
    """GET /internal/prompts/scheduled?cadence=&after=&limit=: every organization's active prompts of
    a cadence, by id, for the analytics part's scheduler (a service caller only)."""
    if caller_of(request).principal_kind != "service":
        raise Forbidden("the scheduled prompts are read by services only")
    query = load_endpoint_query(request, internal.SCHEDULED_PROMPTS)
    async with cursor(request.app[DB_POOL]) as cur:
        items, after = await prompts.scheduled(cur, query["cadence"], query.get("after"), query["limit"])
    answer: b.PromptsPage = {"items": items, "next": after}
    return json_response(answer)


async def internal_prompt_get(request: web.Request) -> web.Response:
    """GET /internal/prompts/{promptId}: a prompt of the caller's organization, as its answers name it."""
    return await _prompt(request)
