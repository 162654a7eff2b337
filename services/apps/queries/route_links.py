"""Which App route serves a URL: a verified domain of a live App, and that App's live route at the
URL's path (its canonical key). Plain async functions, cursor first."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row, fetch_all
from services.apps.queries.domains import held


async def routes_at(cur: Any, organization_id: str, hosts: list[str], keys: list[str]) -> list[Row]:
    """For each (hosts[i], keys[i]), the organization's route serving it, with `i` as `ordinal`; a pair
    no route serves is absent."""
    return await fetch_all(
        cur,
        "SELECT q.ordinal - 1 AS ordinal, d.app_id::text AS app_id, r.id::text AS route_id, r.path"
        " FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS q (host, path_key, ordinal)"
        " JOIN domains d ON d.domain = q.host AND d.organization_id = %s AND d.scope = 'app'"
        f" AND d.verified_at IS NOT NULL AND {held('d')}"
        " JOIN apps a ON a.id = d.app_id AND a.deleted_at IS NULL"
        " JOIN routes r ON r.app_id = d.app_id AND md5(r.path_key) = md5(q.path_key) AND r.deleted_at IS NULL",
        (hosts, keys, organization_id),
    )
