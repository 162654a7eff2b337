"""What the public edge reads of apps: which App a hostname serves, and the versions by which it
knows that its copies are current. Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all, fetch_one, fetch_value
from services.apps.queries.domains import held

# A digest of everything of the app `a` (joined to its config `c`) an edge answer shows but its
# documents: the app, its config, domains (verified, released, lapsed, deleted), products and routes.
VERSION = (
    "md5(concat_ws('|', a.updated_at, a.deleted_at, c.updated_at,"
    " (SELECT string_agg(concat_ws(',', d.id, d.updated_at, d.deleted_at, d.released_at, d.verified_at,"
    " d.expires_at > clock_timestamp()), ';' ORDER BY d.id) FROM domains d WHERE d.app_id = a.id),"
    " (SELECT concat_ws(',', count(*) FILTER (WHERE r.deleted_at IS NULL), max(GREATEST(r.updated_at, r.deleted_at)))"
    " FROM routes r WHERE r.app_id = a.id),"
    " (SELECT string_agg(concat_ws(',', r.id, r.deleted_at), ';' ORDER BY r.id) FROM app_resources r"
    " WHERE r.app_id = a.id),"
    " (SELECT max(p.updated_at) FROM products p WHERE p.organization_id = a.organization_id)))"
)
LIVE_APP = "apps a JOIN app_configs c ON c.app_id = a.id AND c.deleted_at IS NULL"


async def verified_host(cur: Any, hostname: str) -> Row | None:
    """The verified app domain holding `hostname`, of a live app, with the app's version read in the
    same statement; None for any other hostname (unknown, an unverified claim, released, deleted,
    a product-scoped legacy domain)."""
    return await fetch_one(
        cur,
        "SELECT d.id::text AS domain_id, d.organization_id::text AS organization_id, d.app_id::text AS app_id,"
        f" d.domain, d.type, d.origin, {VERSION} AS version FROM domains d"
        f" JOIN {LIVE_APP} ON a.id = d.app_id AND a.deleted_at IS NULL"
        f" WHERE d.domain = %s AND d.scope = 'app' AND d.verified_at IS NOT NULL AND {held('d')}",
        (hostname,),
    )


async def app_version(cur: Any, organization_id: str, app_id: str) -> str | None:
    """The live app's version; None when it is not one of the organization's live apps."""
    version: str | None = await fetch_value(
        cur,
        f"SELECT {VERSION} FROM {LIVE_APP} WHERE a.id = %s AND a.organization_id = %s AND a.deleted_at IS NULL",
        (app_id, organization_id),
    )
    return version


async def app_versions(cur: Any, app_ids: list[str]) -> list[Row]:
    """The version of each live app among `app_ids`; a deleted or unknown app has none."""
    return await fetch_all(
        cur,
        f"SELECT a.id::text AS app_id, {VERSION} AS version FROM {LIVE_APP}"
        " WHERE a.id = ANY(%s::uuid[]) AND a.deleted_at IS NULL",
        (app_ids,),
    )
