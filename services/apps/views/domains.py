"""Handlers of an app's domains, and the domain resolution the content service relies on."""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor, transaction
from libs.common.encoding import json_response
from libs.common.etags import record_etag, versioned_response
from libs.common.schemas import load_endpoint_body, load_json
from libs.common.state import DB_POOL, SETTINGS, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b
from services.apps.claims import add_app_domain, verify_app_domain
from services.apps.queries import apps as app_queries
from services.apps.queries import domains as queries
from services.apps.schemas.requests import DomainCreate
from services.apps.state import EDGE, TXT_CHECKER

DOMAIN_CREATE = DomainCreate()


async def apps_domains_list(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/domains: the app's domains that are not deleted (released ones too), oldest first."""
    app_id = request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, caller_of(request).org.id, app_id)
        domains = await queries.list_app_domains(cur, app_id)
    return json_response(domains)


async def apps_domains_create(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/domains: claim a hostname for the app (unverified), or take over one
    another organization holds unverified (or verified, its record missing for the grace period) once
    the app's challenge is proven; otherwise a 409."""
    data = await load_json(request, DOMAIN_CREATE)
    app, settings = request.app, request.app[SETTINGS]
    domain = await add_app_domain(
        app[DB_POOL],
        app[EDGE],
        app[TXT_CHECKER],
        settings.domain_claim_days,
        settings.domain_reclaim_grace_seconds,
        caller_of(request).org.id,
        request.match_info["appId"],
        data,
    )
    return versioned_response(request, domain, record_etag(domain), status=201)


async def apps_domains_delete(request: web.Request) -> web.Response:
    """DELETE /api/v1/apps/{appId}/domains/{domainId}: soft-delete the domain, freeing its hostname; answers it."""
    organization_id, app_id = caller_of(request).org.id, request.match_info["appId"]
    async with transaction(request.app[DB_POOL]) as cur:
        await app_queries.require_app(cur, organization_id, app_id)
        domain = await queries.delete_app_domain(cur, organization_id, app_id, request.match_info["domainId"])
    return json_response(domain)


async def apps_domains_verify(request: web.Request) -> web.Response:
    """POST /api/v1/apps/{appId}/domains/{domainId}/verify: look the domain's TXT record up; the domain,
    verified or with `verificationError`."""
    domain = await verify_app_domain(
        request.app[DB_POOL],
        request.app[TXT_CHECKER],
        caller_of(request).org.id,
        request.match_info["appId"],
        request.match_info["domainId"],
    )
    return versioned_response(request, domain, record_etag(domain))


async def internal_domains_resolve(request: web.Request) -> web.Response:
    """POST /internal/domains/resolve: the domains among `ids` of the caller's organization that hold their hostname."""
    data = await load_endpoint_body(request, internal.DOMAINS_RESOLVE)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.resolve_domains(cur, caller_of(request).org.id, data["ids"])
    answer: b.ResolvedDomains = {"domains": [{"id": row["id"], "domain": row["domain"]} for row in rows]}
    return json_response(answer)


async def internal_domains_by_host(request: web.Request) -> web.Response:
    """POST /internal/domains/by-host: the caller's organization's App domains among `hosts` (verified or
    not), each as `{id, domain, appId, verified}`; a hostname no App of theirs claims is left out."""
    data = await load_endpoint_body(request, internal.DOMAINS_BY_HOST)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.app_domains_by_host(cur, caller_of(request).org.id, data["hosts"])
    answer: b.HostDomains = {
        "domains": [
            {"id": row["id"], "domain": row["domain"], "appId": row["app_id"], "verified": row["verified"]}
            for row in rows
        ]
    }
    return json_response(answer)
