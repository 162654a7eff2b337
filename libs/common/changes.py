"""A part's changes after a position, read from its outbox: the internal endpoint that serves them
and the call that reads them, declared once for both sides.

A part that publishes events (content, and the gateway for products) answers
`GET <path>?after=N&limit=L` with `{changes: [{position, event}], complete}`: the events its
outbox placed after stream position N, in position order, each shaped as on the stream, and
whether the outbox still holds every change after N (published events are pruned after 7 days).
A consumer whose stream lost entries reads them here instead (libs/common/catch_up.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web
from marshmallow import fields, validate

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.errors import Forbidden
from libs.common.http_client import InternalClient
from libs.common.internal_token import service_caller
from libs.common.relay import Outbox
from libs.common.schemas import ApiSchema, load_query
from libs.common.state import DB_POOL, caller_of
from libs.contract.internal import Endpoint

PAGE_MAX = 1000


class ChangesQuery(ApiSchema):
    after = fields.Integer(required=True, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=PAGE_MAX, validate=validate.Range(min=1, max=PAGE_MAX))


CHANGES_QUERY = ChangesQuery()


async def changes_answer(request: web.Request, outbox: Outbox) -> web.Response:
    """The answer of a part's changes endpoint: `outbox`'s changes after `after` (at most `limit`),
    and whether none of them was pruned. Only parts call it, on their own behalf: the list spans
    every organization."""
    if caller_of(request).principal_kind != "service":
        raise Forbidden("only a part may list every organization's changes")
    query = load_query(request, CHANGES_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        rows, complete = await outbox.changes_after(cur, query["after"], query["limit"])
    changed = [{"position": row["position"], "event": outbox.event_from_row(row)} for row in rows]
    return json_response({"changes": changed, "complete": complete})


@dataclass(frozen=True)
class Changes:
    """A page of changes: (position, event) in position order, and whether none was pruned."""

    events: list[tuple[int, dict[str, Any]]]
    complete: bool


async def read_changes(http: InternalClient, base_url: str, endpoint: Endpoint, reader: str, after: int) -> Changes:
    """The first page of the changes after `after` from the part at `base_url`, as `reader`."""
    query = [("after", str(after)), ("limit", str(PAGE_MAX))]
    page = await http.request(endpoint, base_url, service_caller(reader), query=query)
    return Changes([(int(change["position"]), change["event"]) for change in page["changes"]], bool(page["complete"]))
