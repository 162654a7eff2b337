"""Linking cited pages to the App routes that serve them, for the analysis of AI answers."""

from __future__ import annotations

from urllib.parse import urlsplit

from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.schemas import load_endpoint_body
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b
from libs.contract.validators import normalize_hostname, normalize_route_path
from services.apps.queries import route_links as queries

# The ports an App's domain is served on (the edge behind TLS, or plain HTTP redirected to it).
SERVED_PORTS = (None, 80, 443)


def host_and_key(url: str) -> tuple[str, str] | None:
    """The hostname and the canonical route path of an http(s) URL an App could serve; None otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or port not in SERVED_PORTS:
        return None
    return normalize_hostname(parts.hostname), normalize_route_path(parts.path)


async def internal_routes_by_url(request: web.Request) -> web.Response:
    """POST /internal/routes/by-url: for each of `urls` on a verified domain of one of the caller's
    organization's live Apps, the live route at its path, as `{url, appId, routeId, path}`; a URL no
    route serves is left out."""
    data = await load_endpoint_body(request, internal.ROUTES_BY_URL)
    asked = [(url, found) for url in data["urls"] if (found := host_and_key(url)) is not None]
    answer: b.RoutesAtUrls = {"routes": []}
    if not asked:
        return json_response(answer)
    async with cursor(request.app[DB_POOL]) as cur:
        rows = await queries.routes_at(
            cur, caller_of(request).org.id, [host for _, (host, _) in asked], [key for _, (_, key) in asked]
        )
    answer["routes"] = [
        {"url": asked[row["ordinal"]][0], "appId": row["app_id"], "routeId": row["route_id"], "path": row["path"]}
        for row in rows
    ]
    return json_response(answer)
