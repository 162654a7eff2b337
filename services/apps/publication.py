"""What an App publishes for agents, computed on every read: its routes (this service) joined to
the documents agents may read (content: published, not noIndex), on its primary web domain.

Computed on read, the answers follow a route, document or domain change at once; the strong
ETag lets a client that already has the current text get a 304 (docs/architecture.md,
"What agents read").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web

from libs.common.db import Row, cursor
from libs.common.encoding import loads
from libs.common.errors import Conflict, NotFound
from libs.common.state import DB_POOL, SETTINGS, caller_of
from services.apps import agent_text, upstream
from services.apps.products import products_by_id
from services.apps.queries import app_routes as route_queries
from services.apps.queries import publication as queries
from services.apps.state import TEXTS
from services.apps.text_cache import Written

# How many route targets go to the content service in one call (its limit).
LISTED_PER_CALL = 10_000
# The config key naming the primary web domain, when it is not the first added.
PRIMARY_DOMAIN_KEY = "primaryDomain"
CACHE_CONTROL = "private, no-cache"


@dataclass(frozen=True)
class Site:
    """A live App with a primary web domain: what every one of its agent texts starts from."""

    app_id: str
    row: Row
    base_url: str

    @property
    def title(self) -> str:
        name: str = self.row["name"]
        return name

    @property
    def summary(self) -> str | None:
        """`metadata.description`, else the config's `description`, when either is text."""
        for holder in (self.row["metadata"], self.row["config"]):
            value = holder.get("description") if isinstance(holder, dict) else None
            if isinstance(value, str) and value.strip():
                return value
        return None

    @property
    def describedby(self) -> str:
        return f'<{self.base_url}/llms.txt>; rel="describedby"'

    @property
    def version(self) -> Hashable:
        """What changes whenever anything of the App an agent text shows does (but its documents)."""
        row = self.row
        return (
            self.base_url,
            row["changed_at"],
            row["route_count"],
            tuple(row["domains"]),
            tuple(row["products"]),
            row["products_changed_at"],
        )


@dataclass(frozen=True)
class Listing:
    site: Site
    entries: list[agent_text.Entry]
    # When the app, its config, domains or routes, or a listed document last changed.
    changed_at: datetime


def primary_domain(domains: list[str], config: Any) -> str | None:
    """The config's `primaryDomain` when it names one of the app's web domains, else the first added."""
    named = config.get(PRIMARY_DOMAIN_KEY) if isinstance(config, dict) else None
    if isinstance(named, str) and named.lower() in domains:
        return named.lower()
    return domains[0] if domains else None


async def load_site(request: web.Request) -> Site:
    """The caller's live App with its primary web domain; 404 for an unknown app, 409 without a verified
    web domain."""
    app_id = request.match_info["appId"]
    async with cursor(request.app[DB_POOL]) as cur:
        row = await queries.published_app(cur, caller_of(request).org.id, app_id)
    if row is None:
        raise NotFound("app not found")
    domain = primary_domain(row["domains"], row["config"])
    if domain is None:
        raise Conflict(
            "the app has no web domain that is verified: add one (POST /api/v1/apps/{appId}/domains with type web)"
            " and prove it (POST .../domains/{domainId}/verify), and its pages get their URLs there"
        )
    return Site(app_id, row, f"https://{domain}")


async def routed_lists(request: web.Request, site: Site) -> list[str]:
    """The ids of the documents the App routes to, each once, as JSON arrays of at most LISTED_PER_CALL."""
    async with cursor(request.app[DB_POOL]) as cur:
        return await route_queries.routed_targets(cur, site.app_id, LISTED_PER_CALL)


async def load_listing(request: web.Request, site: Site, lists: list[str]) -> Listing:
    """The App's listed routes (their targets published and indexable), by priority, then path."""
    async with cursor(request.app[DB_POOL]) as cur:
        routes: list[tuple[str, str]] = loads(await queries.route_listing(cur, site.app_id))
    documents = {
        document["id"]: document
        for batch in await asyncio.gather(*(upstream.listed_documents(request, ids) for ids in lists))
        for document in batch
    }
    changed_at: datetime = site.row["changed_at"]
    if documents:
        # PostgreSQL writes every timestamp in UTC in one form, whose text order is time order.
        changed_at = max(changed_at, datetime.fromisoformat(max(doc["updatedAt"] for doc in documents.values())))
    return Listing(site, agent_text.listed(routes, documents, site.base_url), changed_at)


async def written_text(request: web.Request, kind: str, write: Callable[[Listing], Awaitable[bytes]]) -> Written:
    """The App's text of `kind` as `write` makes it from the listing, or as this process last made
    it when nothing it shows has changed since (services/apps/text_cache.py)."""
    site = await load_site(request)
    version = (site.version, await upstream.documents_last_change(request))
    key = (site.app_id, kind)
    written = request.app[TEXTS].get(key, version)
    if written is None:
        listing = await load_listing(request, site, await routed_lists(request, site))
        body = await write(listing)
        written = Written(body, agent_text.strong_etag(body), listing.changed_at)
        request.app[TEXTS].put(key, version, written)
    return written


async def sections_of(request: web.Request, listing: Listing) -> list[tuple[str, list[agent_text.Entry]]]:
    """The llms.txt sections: per product for an App of several products, else per first path segment."""
    product_names = None
    if len(listing.site.row["products"]) > 1:
        product_ids = sorted({entry.document["productId"] for entry in listing.entries})
        async with cursor(request.app[DB_POOL]) as cur:
            products = await products_by_id(request, cur, product_ids)
        product_names = {product_id: product["name"] for product_id, product in products.items()}
    return agent_text.sections(listing.entries, product_names, request.app[SETTINGS].llms_optional_below)


def not_modified(request: web.Request, etag: str, changed_at: datetime) -> web.Response | None:
    """A 304 when `If-None-Match` names `etag` (or is `*`); None otherwise."""
    named = request.if_none_match
    if named is None or not any(tag.value in (etag, "*") for tag in named):
        return None
    response = web.Response(status=304)
    set_validators(response, etag, changed_at)
    return response


def set_validators(response: web.StreamResponse, etag: str, changed_at: datetime) -> None:
    response.etag = etag
    response.last_modified = changed_at
    response.headers["Cache-Control"] = CACHE_CONTROL
