"""What the public edge (services/edge) reads of apps, as the service it is: which App a hostname
serves, an App's site (name, config, primary domain, routes), one routed page, its agent files and
the versions by which the edge knows its copies are current (docs/architecture.md, "The edge").

The edge names the organization in its token once the hostname told it; every read but the
hostname's and the versions' is of that organization's App only.
"""

from __future__ import annotations

import orjson
from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.errors import NotFound
from libs.common.schemas import load_endpoint_body
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b
from libs.contract.validators import HOSTNAME_MAX, is_uuid
from services.apps.publication import load_site
from services.apps.queries import edge as queries
from services.apps.queries import publication
from services.apps.views import agent_files


async def internal_edge_host(request: web.Request) -> web.Response:
    """GET /internal/edge/hosts/{hostname}: the verified domain of a live App holding the hostname; 404 otherwise."""
    hostname = request.match_info["hostname"]
    row = None
    if len(hostname) <= HOSTNAME_MAX:
        async with cursor(request.app[DB_POOL]) as cur:
            row = await queries.verified_host(cur, hostname)
    if row is None:
        raise NotFound("no verified domain holds this hostname")
    answer: b.EdgeHost = {
        "domainId": row["domain_id"],
        "organizationId": row["organization_id"],
        "appId": row["app_id"],
        "hostname": row["domain"],
        "type": row["type"],
        "origin": row["origin"],
        "version": row["version"],
    }
    return json_response(answer)


async def internal_edge_site(request: web.Request) -> web.Response:
    """GET /internal/edge/apps/{appId}/site: the App's name, config, primary URL and routes' paths, and
    its version, read before them (a change after it shows in the next version the edge asks for)."""
    app_id = request.match_info["appId"]
    version = None
    if is_uuid(app_id):
        async with cursor(request.app[DB_POOL]) as cur:
            version = await queries.app_version(cur, caller_of(request).org.id, app_id)
    if version is None:
        raise NotFound("app not found")
    site = await load_site(request)
    async with cursor(request.app[DB_POOL]) as cur:
        routes = await publication.route_listing(cur, site.app_id)
    answer: b.EdgeSite = {
        "appId": site.app_id,
        "name": site.title,
        "config": site.row["config"],
        "baseUrl": site.base_url,
        "version": version,
        "routes": [],
    }
    # The routes as PostgreSQL wrote them.
    return json_response({**answer, "routes": orjson.Fragment(routes)})


async def internal_edge_page(request: web.Request) -> web.Response:
    """GET /internal/edge/apps/{appId}/page?path=: the live, published document routed at `path`; 404 otherwise."""
    site, route, document = await agent_files.routed_document(request)
    answer: b.EdgePage = {"path": route["path"], "baseUrl": site.base_url, "document": document}
    return json_response(answer)


async def internal_edge_llms_txt(request: web.Request) -> web.Response:
    """GET /internal/edge/apps/{appId}/llms.txt: as the API's llms.txt."""
    return await agent_files.apps_llms_txt(request)


async def internal_edge_llms_full_txt(request: web.Request) -> web.Response:
    """GET /internal/edge/apps/{appId}/llms-full.txt: as the API's llms-full.txt."""
    return await agent_files.apps_llms_full_txt(request)


async def internal_edge_sitemap(request: web.Request) -> web.Response:
    """GET /internal/edge/apps/{appId}/sitemap.xml: as the API's sitemap.xml."""
    return await agent_files.apps_sitemap(request)


async def internal_edge_versions(request: web.Request) -> web.Response:
    """POST /internal/edge/versions {appIds}: each live App's version; an App left out is deleted or unknown."""
    data = await load_endpoint_body(request, internal.EDGE_VERSIONS)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.app_versions(cur, data["app_ids"])
    answer: b.AppVersions = {"versions": {row["app_id"]: row["version"] for row in rows}}
    return json_response(answer)
