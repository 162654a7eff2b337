"""Handlers of an app's domains, and the domain resolution the content service relies on."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.etags import record_etag, versioned_response
from libs.common.schemas import load_json
from libs.common.state import DB_POOL, caller_of
from services.apps.domains import register_domain
from services.apps.queries import apps as app_queries
from services.apps.queries import domains as queries
from services.apps.schemas.requests import DomainCreate, DomainResolve
from services.apps.state import EDGE

DOMAIN_CREATE = DomainCreate()
DOMAIN_RESOLVE = DomainResolve()


async def apps_domains_list(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/domains: the app's live domains, oldest first."""
    app_id = request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, caller_of(request).org.id, app_id)
        domains = await queries.list_app_domains(cur, app_id)
    return json_response(domains)


async def apps_domains_create(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/domains: claim a hostname for the app; one taken anywhere is a 409."""
    data = await load_json(request, DOMAIN_CREATE)
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, organization_id, app_id, lock=True)
        domain = await register_domain(
            cur, request.app[EDGE], organization_id, {**data, "scope": "app", "app_id": app_id}
        )
    return versioned_response(request, domain, record_etag(domain), status=201)


async def apps_domains_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}/domains/{domainId}: soft-delete the domain, freeing its hostname; answers it."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, organization_id, app_id)
        domain = await queries.delete_app_domain(cur, app_id, request.match_info["domainId"])
    return json_response(domain)


async def internal_domains_resolve(request: web.Request) -> web.Response:
    """POST /internal/domains/resolve: the live domains among `ids` of the caller's organization."""
    data = await load_json(request, DOMAIN_RESOLVE)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.resolve_domains(cur, caller_of(request).org.id, data["ids"])
    return json_response({"domains": [{"id": row["id"], "domain": row["domain"]} for row in rows]})
