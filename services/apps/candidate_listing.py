"""Route candidates read from the content service's documents: one page of the list (beyond the
contract), or the whole list, streamed as it is read.

The content service gives a product's documents in path order, then id, a read at a time, each
read starting after a given document (`GET /internal/targets`). Every path it stores is already a
canonical route path, so that is the order of the suggested paths too, and the candidates keep
it. A page starts after the document its cursor names and reads on until it holds one candidate
more than asked for, or the documents end: routed documents left out may take more than one read
to fill a page, never make it short, and the extra candidate says whether a next page exists.
The count of a page is the content service's count of the products' documents, less the app's
routed documents among them unless those are listed (docs/architecture.md, "Apps service"). The
routed count asks the content service about every routed id (10,000 for a busy app), so each
process keeps it with the version it was made from: the app's routes' count and last change and
the organization's last document change (services/apps/text_cache.py). A page reads that version
(an index probe in each service) and asks again only when it changed: a route created, deleted
or changed, or a document written, shows in the next page's count.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from libs.common.cursors import encode_cursor
from libs.common.db import cursor
from libs.common.encoding import dumps, streamed_json_response
from libs.common.state import DB_POOL, REQUEST_ID
from services.apps import upstream
from services.apps.candidates import route_candidates, suggested_paths
from services.apps.queries import app_routes as queries
from services.apps.state import ROUTED_COUNTS

log = logging.getLogger(__name__)

# The content service's bounds: documents a read, ids a count.
READ_MAX = 1000
COUNT_IDS_MAX = 10_000

Lookup = dict[str, dict[str, Any]]
# A document's (path, id): where a read, or a page, starts after.
Position = tuple[str, str]


def position_of(document: dict[str, Any]) -> Position:
    return document["filePath"], document["id"]


@dataclass(frozen=True)
class CandidateListing:
    """The app's candidates among its `products`' documents with `status`."""

    request: web.Request
    app_id: str
    products: Lookup
    status: str
    include_routed: bool

    async def read(self, after: Position | None, limit: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The next `limit` documents after `after`, and the candidates among them."""
        if not self.products:
            return [], []
        documents = await upstream.targets(self.request, list(self.products), self.status, after, limit)
        suggested = suggested_paths(documents)
        async with cursor(self.request.app[DB_POOL]) as cur:
            routes = await queries.all_routes_if_at_most(cur, self.app_id, len(documents))
            if routes is None:
                routes = await queries.routes_matching(cur, self.app_id, list(suggested.values()), list(suggested))
        return documents, route_candidates(documents, suggested, routes, self.products, self.include_routed)

    async def count(self) -> int:
        """The products' documents with the status, less the ones the app routes unless those are listed."""
        if not self.products:
            return 0
        product_ids = list(self.products)
        if self.include_routed:
            return await upstream.count_targets(self.request, product_ids, self.status, None)
        total, routed = await asyncio.gather(
            upstream.count_targets(self.request, product_ids, self.status, None), self._routed_count(product_ids)
        )
        return total - routed

    async def _routed_count(self, product_ids: list[str]) -> int:
        """How many of the documents the app routes are the products' with the status: as this
        process last counted them when neither the routes nor a document changed since."""
        routes, documents = await asyncio.gather(self._routes_version(), upstream.documents_last_change(self.request))
        # The version is read before counting: a change made meanwhile leaves a count newer than
        # its version, which the next read finds changed and counts again.
        version = (routes, documents)
        key = (self.app_id, tuple(sorted(product_ids)), self.status)
        kept = self.request.app[ROUTED_COUNTS].get(key, version)
        if kept is not None:
            return kept
        async with cursor(self.request.app[DB_POOL]) as cur:
            routed = await queries.routed_targets(cur, self.app_id, COUNT_IDS_MAX)
        counts = await asyncio.gather(
            *(upstream.count_targets(self.request, product_ids, self.status, among) for among in routed)
        )
        self.request.app[ROUTED_COUNTS].put(key, version, sum(counts))
        return sum(counts)

    async def _routes_version(self) -> tuple[int, Any]:
        async with cursor(self.request.app[DB_POOL]) as cur:
            return await queries.routes_version(cur, self.app_id)

    async def page(self, after: Position | None, limit: int) -> dict[str, Any]:
        """`limit` candidates after the document `after`, the count of all, and the next page's cursor."""
        (candidates, more), count = await asyncio.gather(self._next(after, limit), self.count())
        return {
            "appId": self.app_id,
            "candidateCount": count,
            "candidates": candidates,
            "nextCursor": encode_cursor(*position_of(candidates[-1]["target"])) if more else None,
        }

    async def _next(self, after: Position | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The first `limit` candidates after `after`, and whether more follow."""
        found: list[dict[str, Any]] = []
        wanted = min(limit + 1, READ_MAX)
        while True:
            documents, candidates = await self.read(after, wanted)
            found += candidates
            if len(found) > limit or len(documents) < wanted:
                return found[:limit], len(found) > limit
            # Read on: what the page still lacks when no document was left out; else twice the
            # last read, since the documents that follow may well be routed too.
            need = limit + 1 - len(found)
            after = position_of(documents[-1])
            wanted = min(need if len(candidates) == len(documents) else max(need, wanted * 2), READ_MAX)

    async def stream(self) -> web.Response:
        """The whole list as one answer, written as its documents are read, so the service holds at
        most two reads however long the list. The first read happens before the answer starts, so
        its failure is still an error answer; a later one breaks the answer off."""
        return streamed_json_response(self._pieces(*await self.read(None, READ_MAX)))

    async def _pieces(self, documents: list[dict[str, Any]], candidates: list[dict[str, Any]]) -> AsyncIterator[bytes]:
        yield b'{"appId":' + dumps(self.app_id) + b',"candidates":['
        count = 0
        following: asyncio.Task[tuple[list[dict[str, Any]], list[dict[str, Any]]]] | None = None
        try:
            while True:
                # The next read runs while this one is written: the content service's work and
                # the writing overlap, and still at most two reads are held.
                if len(documents) == READ_MAX:
                    following = asyncio.ensure_future(self.read(position_of(documents[-1]), READ_MAX))
                if candidates:
                    yield (b"," if count else b"") + dumps(candidates)[1:-1]
                    count += len(candidates)
                if following is None:
                    break
                (documents, candidates), following = await following, None
        except Exception as exc:
            log.warning(
                "route candidates of app %s broke off after %d candidates (request %s): %r",
                self.app_id,
                count,
                self.request.get(REQUEST_ID),
                exc,
            )
            raise
        finally:
            if following is not None:  # the client went away, or writing failed
                following.cancel()
        # The count follows the list, since it is the number written: the contract's fields, in
        # another order, which JSON objects do not have.
        yield b'],"candidateCount":' + str(count).encode() + b"}"
