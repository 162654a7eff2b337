"""A part's changes after a position, read from its outbox: the answer of the internal endpoint that
serves them (its client is `libs.common.clients.read_changes`).

A part that publishes events (content, and the gateway for products) answers
`GET <path>?after=N&limit=L` with `{changes: [{position, event}], complete}`: the events its
outbox placed after stream position N, in position order, each shaped as on the stream, and
whether the outbox still holds every change after N (published events are pruned after 7 days).
A consumer whose stream lost entries reads them here instead (libs/common/catch_up.py).
"""

from __future__ import annotations

from aiohttp import web

from libs.common.db import cursor
from libs.common.encoding import json_response
from libs.common.errors import Forbidden
from libs.common.relay import Outbox
from libs.common.schemas import load_query
from libs.common.state import DB_POOL, caller_of
from libs.contract import internal
from libs.contract import internal_bodies as b


async def changes_answer(request: web.Request, outbox: Outbox) -> web.Response:
    """The answer of a part's changes endpoint: `outbox`'s changes after `after` (at most `limit`),
    and whether none of them was pruned. Only parts call it, on their own behalf: the list spans
    every organization."""
    if caller_of(request).principal_kind != "service":
        raise Forbidden("only a part may list every organization's changes")
    query = load_query(request, internal.CHANGES_QUERY)
    async with cursor(request.app[DB_POOL]) as cur:
        rows, complete = await outbox.changes_after(cur, query["after"], query["limit"])
    answer: b.Changes = {
        "changes": [{"position": row["position"], "event": outbox.event_from_row(row)} for row in rows],
        "complete": complete,
    }
    return json_response(answer)
