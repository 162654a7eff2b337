"""Strong ETags of single resources, and the conditional requests that use them (RFC 9110 §13).

A resource's ETag names its version: a digest of its id and of the `updated_at` that every write
of it stamps (for an app, also those of its config and resources, which its answer shows). The
service owning the resource checks `If-Match` inside the transaction that writes, with the row
locked, so no write can slip between the check and its own; `If-None-Match` on a read answers 304.
Without either header a request behaves as if they did not exist.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from libs.common.encoding import json_response
from libs.common.errors import PreconditionFailed

IF_MATCH = "If-Match"
IF_NONE_MATCH = "If-None-Match"


def etag(*parts: object) -> str:
    """The strong entity tag of a version made of `parts` (ids and update times)."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()
    return f'"{digest[:32]}"'


def record_etag(record: Mapping[str, Any]) -> str:
    """The ETag of a record in its API shape: its `id` and `updatedAt`."""
    return etag(record["id"], record["updatedAt"])


def _listed(header: str) -> list[str]:
    return [tag.strip() for tag in header.split(",") if tag.strip()]


def check_if_match(request: web.Request, current: str) -> None:
    """412 `PRECONDITION_FAILED`, the current ETag in `details`, unless `If-Match` is absent,
    `*`, or names `current` (strong comparison: a weak tag never matches)."""
    header = request.headers.get(IF_MATCH)
    if header is None:
        return
    tags = _listed(header)
    if "*" in tags or current in tags:
        return
    raise changed_since(current)


def changed_since(current: str) -> PreconditionFailed:
    """The 412 of a stale `If-Match`, naming the resource's current ETag."""
    return PreconditionFailed(
        "the resource has changed since the version named in If-Match; read it again", details={"etag": current}
    )


def not_modified(request: web.Request, current: str) -> bool:
    """Whether `If-None-Match` names `current` or `*` (weak comparison, as RFC 9110 says for it)."""
    header = request.headers.get(IF_NONE_MATCH)
    if header is None:
        return False
    tags = [tag.removeprefix("W/") for tag in _listed(header)]
    return "*" in tags or current in tags


def tagged(response: web.Response, current: str) -> web.Response:
    response.headers["ETag"] = current
    return response


def versioned_response(request: web.Request, data: Any, current: str, status: int = 200) -> web.Response:
    """`data` with its ETag; a read whose `If-None-Match` holds it is a 304 without a body."""
    if request.method in ("GET", "HEAD") and not_modified(request, current):
        return web.Response(status=304, headers={"ETag": current})
    return json_response(data, status, headers={"ETag": current})
