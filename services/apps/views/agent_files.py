"""Handlers of what an App publishes for agents: llms.txt, llms-full.txt, a page's markdown and
sitemap.xml. Each answers with a strong ETag and Last-Modified and honours If-None-Match."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from aiohttp import payload, web

from libs.common.db import Row, cursor
from libs.common.errors import NotFound
from libs.common.schemas import load_endpoint_query, load_query
from libs.common.state import DB_POOL
from libs.contract import internal, internal_bodies
from libs.contract.validators import normalize_route_path
from services.apps import agent_text, upstream
from services.apps.publication import (
    Listing,
    Site,
    load_listing,
    load_site,
    not_modified,
    routed_lists,
    sections_of,
    set_validators,
    written_text,
)
from services.apps.queries import publication as queries
from services.apps.text_cache import Written

PAGE_QUERY = internal_bodies.RoutedPageQuery()
TEXT = "text/plain"
MARKDOWN = "text/markdown"
XML = "application/xml"
# Documents whose markdown is asked of the content service at once (its limit).
TEXT_PER_CALL = 50


def _answer(request: web.Request, written: Written, media_type: str) -> web.Response:
    unchanged = not_modified(request, written.etag, written.changed_at)
    if unchanged is not None:
        return unchanged
    response = web.Response(body=written.body, content_type=media_type, charset="utf-8")
    set_validators(response, written.etag, written.changed_at)
    return response


async def apps_llms_txt(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/llms.txt: the App's listed pages for agents, in the llms.txt format."""

    async def write(listing: Listing) -> bytes:
        site, named_sections = listing.site, await sections_of(request, listing)
        return agent_text.llms_txt(site.title, site.summary, site.base_url, named_sections).encode()

    return _answer(request, await written_text(request, "llms.txt", write), TEXT)


async def apps_llms_full_txt(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/llms-full.txt: the llms.txt header, then every listed document in
    full, streamed as the content service hands their text over."""
    site = await load_site(request)
    listing = await load_listing(request, site, await routed_lists(request, site))
    header = agent_text.header(listing.site.title, listing.site.summary, listing.site.base_url).encode()
    documents = agent_text.first_per_document(listing.entries)
    # A document's text changes only with its updatedAt: the tag covers the answer without reading it.
    etag = agent_text.strong_etag(
        b"llms-full",
        header,
        *(
            f"{entry.title}\n{entry.url}\n{entry.document['id']}\n{entry.document['updatedAt']}".encode()
            for entry in documents
        ),
    )
    unchanged = not_modified(request, etag, listing.changed_at)
    if unchanged is not None:
        return unchanged

    async def texts(batch: list[agent_text.Entry]) -> dict[str, str]:
        return await upstream.documents_text(request, [entry.document["id"] for entry in batch])

    async def pieces() -> AsyncIterator[bytes]:
        yield header
        batches = [documents[start : start + TEXT_PER_CALL] for start in range(0, len(documents), TEXT_PER_CALL)]
        # The next batch's text is on its way while this one is written; at most two are held.
        coming = [asyncio.ensure_future(texts(batches[0]))] if batches else []
        try:
            for index, batch in enumerate(batches):
                arrived = await coming.pop()
                if index + 1 < len(batches):
                    coming.append(asyncio.ensure_future(texts(batches[index + 1])))
                for entry in batch:
                    # A document unpublished since the listing was read is left out.
                    if entry.document["id"] in arrived:
                        yield agent_text.full_part(entry, arrived[entry.document["id"]]).encode()
        finally:
            for task in coming:
                task.cancel()

    response = web.Response(body=payload.AsyncIterablePayload(pieces(), content_type=f"{TEXT}; charset=utf-8"))
    set_validators(response, etag, listing.changed_at)
    return response


async def routed_document(request: web.Request) -> tuple[Site, Row, dict[str, Any]]:
    """The App, the route at the query's `path` and its live, published document; NotFound otherwise."""
    site = await load_site(request)
    query = load_query(request, PAGE_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        route = await queries.route_target(cur, site.app_id, normalize_route_path(query["path"]))
    if route is None:
        raise NotFound("the app has no route at this path")
    document = await upstream.document(request, route["target_id"])
    if document["deletedAt"] is not None or document["status"] != "published":
        raise NotFound("the document routed at this path is not published")
    return site, route, document


async def apps_page_markdown(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/pages/markdown?path=…: the markdown of the published document routed at `path`."""
    site, route, document = await routed_document(request)
    body = document["content"].encode()
    changed_at = max(route["updated_at"], datetime.fromisoformat(document["updatedAt"]))
    written = Written(body, agent_text.strong_etag(body, site.describedby.encode()), changed_at)
    response = _answer(request, written, MARKDOWN)
    response.headers["Link"] = site.describedby
    return response


async def apps_sitemap(request: web.Request) -> web.Response:
    """GET /api/v1/apps/{appId}/sitemap.xml: the URLs of the App's listed pages, with their last change."""

    async def write(listing: Listing) -> bytes:
        return "".join(agent_text.sitemap(listing.entries)).encode()

    return _answer(request, await written_text(request, "sitemap.xml", write), XML)


# What the App's site serves at these paths; any other path is a page, answered as its markdown.
SITE_FILES = {"/llms.txt": apps_llms_txt, "/llms-full.txt": apps_llms_full_txt, "/sitemap.xml": apps_sitemap}
MARKDOWN_SUFFIX = ".md"


async def internal_app_published(request: web.Request) -> web.StreamResponse:
    """GET /internal/apps/{appId}/published?path=…: the document at `path` of the App's site, as the
    public handlers above answer it (a page's path, or the path with `.md`, for its markdown)."""
    path = load_endpoint_query(request, internal.APP_PUBLISHED)["path"]
    site_file = SITE_FILES.get(path)
    if site_file is not None:
        return await site_file(request)
    if path.endswith(MARKDOWN_SUFFIX):
        # The markdown handler reads `path` from the query: the page's own path, without the suffix.
        request = request.clone(rel_url=request.rel_url.update_query(path=path[: -len(MARKDOWN_SUFFIX)] or "/"))
    return await apps_page_markdown(request)
