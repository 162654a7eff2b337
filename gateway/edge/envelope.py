"""The response envelope: `{ok: true, data}` or `{ok: false, code, message, details?}`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from libs.common.encoding import JSON_CONTENT_TYPE, dumps, streamed_json_response
from libs.common.errors import ApiError

_OK_OPEN = b'{"ok":true,"data":'
_OK_CLOSE = b"}"


def error_response(error: ApiError) -> web.Response:
    body = dumps({"ok": False, **error.to_dict()})
    response = web.Response(body=body, status=error.status, content_type=JSON_CONTENT_TYPE, headers=error.headers)
    if error.headers.get("Connection") == "close":
        response.force_close()  # what is left of the request is not read
    return response


def ok_response_from_json(data_json: bytes, status: int = 200) -> web.Response:
    """Splice already-encoded JSON into the success envelope, without decoding it."""
    return web.Response(body=_OK_OPEN + data_json + _OK_CLOSE, status=status, content_type=JSON_CONTENT_TYPE)


def ok_streamed_response(data_json: AsyncIterator[bytes], status: int = 200) -> web.Response:
    """Splice JSON still arriving into the success envelope, passing each piece on as it comes."""

    async def spliced() -> AsyncIterator[bytes]:
        yield _OK_OPEN
        async for piece in data_json:
            yield piece
        yield _OK_CLOSE

    return streamed_json_response(spliced(), status)


def ok_response(data: Any, status: int = 200) -> web.Response:
    return ok_response_from_json(dumps(data), status)
