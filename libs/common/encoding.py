"""JSON in and out, with orjson (about 30% faster than the standard library on our bodies)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import orjson
from aiohttp import payload, web

JSON_CONTENT_TYPE = "application/json"


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _default_for_stdlib(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    return _default(value)


def dumps(value: Any) -> bytes:
    """Encode to JSON bytes; datetimes become RFC 3339 strings and UUIDs plain strings."""
    try:
        return orjson.dumps(value, default=_default)
    except TypeError as exc:
        # JSON numbers have no size limit and jsonb keeps them exactly (a stored 1e308 reads back
        # as a 309-digit integer), but orjson encodes integers of at most 64 bits.
        if "64-bit" not in str(exc):
            raise
        text = json.dumps(value, default=_default_for_stdlib, ensure_ascii=False, separators=(",", ":"))
        return text.encode()


def loads(raw: bytes | str) -> Any:
    """Decode strict JSON (NaN and Infinity are refused)."""
    return orjson.loads(raw)


def json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    """A plain JSON response: services answer the bare `data`; the gateway adds the envelope."""
    return web.Response(body=dumps(data), status=status, content_type=JSON_CONTENT_TYPE, headers=headers)


def raw_json_response(body: bytes, status: int = 200) -> web.Response:
    """A response whose JSON is already encoded (by PostgreSQL, say): sent as is."""
    return web.Response(body=body, status=status, content_type=JSON_CONTENT_TYPE)


def streamed_json_response(pieces: AsyncIterator[bytes], status: int = 200) -> web.Response:
    """A JSON response written piece by piece as `pieces` yields them (chunked, no Content-Length),
    so a long answer is never held whole. The response is returned unprepared, like any other, so
    the middlewares still set its headers; an exception in `pieces` breaks the connection off
    before the final chunk, which a client reads as an incomplete answer."""
    body = payload.AsyncIterablePayload(pieces, content_type=JSON_CONTENT_TYPE)
    return web.Response(body=body, status=status)
