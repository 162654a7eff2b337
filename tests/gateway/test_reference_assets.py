"""/docs and /docs/console and what they load: files at addresses holding their content hash,
kept a year and compressed; the OpenAPI document compressed and revalidated by its ETag."""

from __future__ import annotations

import gzip
import re

import brotli

from tests.conftest import Stack

ASSET = re.compile(r'(?:src|href)="(/assets/[0-9a-f]{16}/[\w.-]+)"')


async def asset_addresses(stack: Stack, page: str = "/docs/console") -> list[str]:
    answer = await stack.gateway.get(page)
    assert answer.status == 200 and answer.headers["Cache-Control"] == "no-store"
    return ASSET.findall(await answer.text())


async def test_the_pages_name_their_assets_by_content_hash_and_they_are_kept_a_year(stack: Stack):
    # Each page also loads the dashboard's own files (its stylesheet and mark), named the same way.
    own = ["dashboard.css", "mark.svg", "mark.svg"]
    docs = [address.rsplit("/", 1)[1] for address in await asset_addresses(stack, "/docs")]
    assert sorted(docs) == sorted([*own, "reference.css"])
    addresses = await asset_addresses(stack) + await asset_addresses(stack, "/docs")
    assert sorted(address.rsplit("/", 1)[1] for address in addresses) == sorted(
        [*own, *own, "reference.css", "reference.js", "swagger-ui-bundle.js", "swagger-ui.css"]
    )
    for address in addresses:
        answer = await stack.gateway.get(address, headers={"Accept-Encoding": "identity"})
        assert answer.status == 200, address
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert "Content-Encoding" not in answer.headers
    script = next(address for address in addresses if address.endswith("swagger-ui-bundle.js"))
    answer = await stack.gateway.get(script, headers={"Accept-Encoding": "identity"})
    assert "javascript" in answer.headers["Content-Type"] and b"SwaggerUIBundle" in await answer.read()


async def test_an_address_of_another_version_is_not_found(stack: Stack):
    script = next(address for address in await asset_addresses(stack) if address.endswith("bundle.js"))
    stale = re.sub(r"/assets/[0-9a-f]{16}/", "/assets/0123456789abcdef/", script)
    assert (await stack.gateway.get(stale)).status == 404
    assert (await stack.gateway.get("/assets/0123456789abcdef/unknown.js")).status == 404


async def test_assets_are_compressed_as_the_client_accepts(stack: Stack):
    script = next(address for address in await asset_addresses(stack) if address.endswith("bundle.js"))
    plain = await (await stack.gateway.get(script, headers={"Accept-Encoding": "identity"})).read()
    for accepted, encoding, decode in (("gzip", "gzip", gzip.decompress), ("gzip, br", "br", brotli.decompress)):
        answer = await stack.gateway.get(script, headers={"Accept-Encoding": accepted}, auto_decompress=False)
        assert (answer.status, answer.headers["Content-Encoding"]) == (200, encoding)
        assert answer.headers["Vary"] == "Accept-Encoding"
        body = await answer.read()
        assert len(body) < len(plain) / 3 and decode(body) == plain
    refused = await stack.gateway.get(script, headers={"Accept-Encoding": "br;q=0, gzip"}, auto_decompress=False)
    assert refused.headers["Content-Encoding"] == "gzip"


async def test_an_asset_the_client_holds_is_a_304_by_its_etag(stack: Stack):
    style = next(address for address in await asset_addresses(stack, "/docs") if address.endswith("reference.css"))
    first = await stack.gateway.get(style, headers={"Accept-Encoding": "gzip"})
    etag = first.headers["ETag"]
    again = await stack.gateway.get(style, headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert (again.status, await again.read(), again.headers["ETag"]) == (304, b"", etag)
    other = await stack.gateway.get(style, headers={"Accept-Encoding": "gzip", "If-None-Match": '"stale"'})
    assert other.status == 200 and await other.read()


async def test_the_openapi_document_is_compressed_and_revalidated_by_its_etag(stack: Stack):
    plain = await stack.gateway.get("/api/v1/openapi.json", headers={"Accept-Encoding": "identity"})
    document = await plain.json()
    assert plain.headers["Cache-Control"] == "no-cache" and document["openapi"] == "3.1.0"
    packed = await stack.gateway.get("/api/v1/openapi.json", headers={"Accept-Encoding": "br"}, auto_decompress=False)
    assert packed.headers["Content-Encoding"] == "br"
    assert brotli.decompress(await packed.read()) == await plain.read()
    held = {"Accept-Encoding": "br", "If-None-Match": packed.headers["ETag"]}
    assert (await stack.gateway.get("/api/v1/openapi.json", headers=held)).status == 304
