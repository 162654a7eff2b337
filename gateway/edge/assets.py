"""Files served with their content hash in the address, compressed once at start.

A page names an asset by `asset_url(name)`: `/assets/<hash>/<name>`. The address changes when the
file does, so the answer may be kept a year (`immutable`: a browser does not even revalidate).
Each file is compressed once per process, on its first request (brotli and gzip, whichever
the client accepts, brotli first), never per request. Every answer carries an ETag, and a matching
`If-None-Match` is a 304 without a body (for caches that revalidate anyway).

The same answering serves the OpenAPI document, which keeps its one address and is revalidated
on each use (`no-cache`) instead.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
from collections.abc import Iterable
from pathlib import Path

import brotli
from aiohttp import web

PREFIX = "/assets/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
HASH_LENGTH = 16
# Brotli's 11 saves 8% more than 9 but takes 8 s on Swagger UI's bundle instead of 0.4 s.
BROTLI_QUALITY = 9
# Compressing a few hundred bytes saves nothing worth a header.
MIN_COMPRESSED_SIZE = 1024


class Asset:
    """One file: its bytes, type and hash, and its compressed bodies once first asked for."""

    def __init__(self, body: bytes, content_type: str) -> None:
        self.body = body
        self.content_type = content_type
        self.digest = hashlib.sha256(body).hexdigest()[:HASH_LENGTH]
        self._encoded: tuple[tuple[str, bytes], ...] | None = None

    def _compress(self) -> tuple[tuple[str, bytes], ...]:
        if len(self.body) < MIN_COMPRESSED_SIZE:
            return ()
        return (
            ("br", brotli.compress(self.body, quality=BROTLI_QUALITY)),
            ("gzip", gzip.compress(self.body, 9, mtime=0)),
        )

    async def encoded(self) -> tuple[tuple[str, bytes], ...]:
        """Each encoding's body, best first; compressed in a thread once per process (~0.6 s for
        Swagger UI's 1.5 MB), so the event loop goes on answering meanwhile."""
        if self._encoded is None:
            self._encoded = await asyncio.get_running_loop().run_in_executor(None, self._compress)
        return self._encoded

    async def answer(self, request: web.Request, cache_control: str) -> web.Response:
        """The asset in the best encoding the request accepts, or a 304 for the ETag it holds."""
        encodings = await self.encoded()
        accepted = _accepted_encodings(request.headers.get("Accept-Encoding", ""))
        encoding, body = next(((name, data) for name, data in encodings if name in accepted), ("", self.body))
        # A strong ETag per representation: the same file compressed is another sequence of bytes.
        etag = f'"{self.digest}-{encoding}"' if encoding else f'"{self.digest}"'
        headers = {"Cache-Control": cache_control, "ETag": etag}
        if encodings:
            headers["Vary"] = "Accept-Encoding"
        if etag in _etags(request.headers.get("If-None-Match", "")):
            return web.Response(status=304, headers=headers)
        if encoding:
            headers["Content-Encoding"] = encoding
        # Text is UTF-8 (Swagger UI's bundle holds non-ASCII): said here, not left to the page's encoding.
        charset = "utf-8" if self.content_type.startswith("text/") else None
        return web.Response(body=body, content_type=self.content_type, charset=charset, headers=headers)


def _accepted_encodings(header: str) -> set[str]:
    """The codings of an Accept-Encoding header, less those refused with `q=0`."""
    accepted = set()
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        refused = params.replace(" ", "").lower() in ("q=0", "q=0.0", "q=0.00", "q=0.000")
        if name and not refused:
            accepted.add(name.strip().lower())
    return accepted


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


class Assets:
    """The files a page may name, each by its name alone, read and compressed once."""

    def __init__(self, files: Iterable[Path]) -> None:
        self._by_name: dict[str, Asset] = {}
        for path in files:
            content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            self._by_name[path.name] = Asset(path.read_bytes(), content_type)

    def url(self, name: str) -> str:
        return f"{PREFIX}{self._by_name[name].digest}/{name}"

    async def serve(self, request: web.Request) -> web.Response:
        """GET /assets/{digest}/{name}: an address of another version of the file is not found."""
        asset = self._by_name.get(request.match_info["name"])
        if asset is None or asset.digest != request.match_info["digest"]:
            raise web.HTTPNotFound()
        return await asset.answer(request, IMMUTABLE)

    def add_route(self, router: web.UrlDispatcher, name: str) -> None:
        router.add_get(PREFIX + "{digest}/{name}", self.serve, name=name)
