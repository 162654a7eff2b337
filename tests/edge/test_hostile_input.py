"""The edge is the product's internet-facing surface: hostile Host headers, paths that try to
escape a route, huge headers — each a clear status, never a 500 — and no domain ever serves another
organization's document, draft or deleted page."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from tests.conftest import Stack
from tests.edge.conftest import Apps, Edge, edge_url
from tests.integration.support import call


async def raw_exchange(stack: Stack, request: bytes) -> bytes:
    """Send `request` as written on a new connection to the edge; its answer's status line."""
    address = urlsplit(edge_url(stack))
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()


@pytest.mark.parametrize(
    "spell",
    [
        lambda host: host.upper(),
        lambda host: host + ".",
        lambda host: host + ":443",
        lambda host: host.upper() + ".:8080",
    ],
    ids=["upper-case", "trailing-dot", "port", "all-of-them"],
)
async def test_spellings_of_a_verified_host_serve_it(edge: Edge, apps: Apps, spell):
    app = await apps.new()
    await app.page("/p", title="P", content="the page")

    response = await edge.get(spell(app.hostname), "/p.md")

    assert (response.status, await response.text()) == (200, "the page")


async def test_an_internationalised_hostname_is_its_punycode_domain(edge: Edge, apps: Apps):
    app = await apps.new()
    await app.domain("xn--bcher-kva.example.com")
    await app.page("/p", title="P", content="umlaut")

    response = await edge.get("BÜCHER.example.com", "/p.md")

    assert (response.status, await response.text()) == (200, "umlaut")


@pytest.mark.parametrize(
    "host",
    [
        "",
        "a..b.example.com",
        "exa mple.com",
        "example.com:http",
        "[::1",
        "x" * 300 + ".com",
        "evil.com/x",
        "\u00ff\u00ff",
    ],
)
async def test_a_host_header_that_names_no_host_is_a_400(edge: Edge, host: str):
    response = await edge.get(host, "/")

    assert response.status == 400, host
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"


async def test_no_host_header_at_all_is_a_400(stack: Stack):
    status = await raw_exchange(stack, b"GET / HTTP/1.0\r\n\r\n")

    assert status.split()[1] == b"400", status


async def test_huge_headers_and_request_lines_are_refused_not_failed(stack: Stack, apps: Apps):
    app = await apps.new()
    host = app.hostname.encode()
    huge_header = b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n"
    many_headers = b"GET / HTTP/1.1\r\nHost: " + host + b"\r\n" + b"X-A: b\r\n" * 40_000 + b"\r\n"
    long_line = b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: " + host + b"\r\n\r\n"

    for request in (huge_header, many_headers, long_line):
        status = await raw_exchange(stack, request)
        assert status.split()[1] in (b"400", b"414", b"431"), status


@pytest.mark.parametrize(
    "path",
    [
        "/docs/%2e%2e/%2e%2e/secret",
        "/docs%2F..%2Fsecret",
        "/docs/..%2f..%2fsecret",
        "/%00",
        "/%ff%fe",
        "/docs/%",
        "/docs/%zz",
        "//secret",
        "/docs;/../secret",
        "/" + "a/" * 1500,
        "/\u00e9",
    ],
)
async def test_paths_that_try_to_escape_a_route_never_reach_another_page(edge: Edge, apps: Apps, path: str):
    app = await apps.new()
    await app.page("/docs/intro", title="Intro", content="public intro")
    other = await apps.new()
    await other.page("/secret", title="Secret", content="other organization's secret")

    response = await edge.get(app.hostname, path, {"Accept": "text/markdown"})

    assert response.status in (400, 404), (path, response.status)
    assert "secret" not in (await response.text()).replace("/secret", "")


async def test_no_domain_serves_another_organizations_document_draft_or_deleted_page(edge: Edge, apps: Apps):
    mine, theirs = await apps.new(), await apps.new(name="Other Org Docs")
    await mine.page("/pricing", title="Mine", content="my pricing")
    await theirs.page("/pricing", title="Theirs", content="their pricing")
    await theirs.page("/only-theirs", title="Only theirs", content="their page")
    draft = await theirs.document(title="Draft", content="their draft", status="draft")
    await theirs.route("/draft", draft)
    deleted = await theirs.page("/deleted", title="Deleted", content="their deleted page")
    await theirs.content.delete(theirs.org, theirs.product, deleted["id"])

    assert await (await edge.get(mine.hostname, "/pricing.md")).text() == "my pricing"
    assert await (await edge.get(theirs.hostname, "/pricing.md")).text() == "their pricing"
    for path in ("/only-theirs", "/only-theirs.md", "/draft", "/deleted", "/draft.md"):
        for host in (mine.hostname, theirs.hostname):
            response = await edge.get(host, path, {"Accept": "text/markdown"})
            text = await response.text()
            if host == theirs.hostname and path.startswith("/only-theirs"):
                assert (response.status, text) == (200, "their page")
            else:
                assert response.status == 404, (host, path)
                assert "their" not in text, (host, path)
    for path in ("/llms.txt", "/llms-full.txt", "/sitemap.xml"):
        text = await (await edge.get(mine.hostname, path)).text()
        assert "their" not in text and theirs.hostname not in text, path


async def test_another_organizations_claim_of_a_verified_host_serves_nothing_of_theirs(edge: Edge, apps: Apps):
    mine, theirs = await apps.new(), await apps.new(name="Claimant")
    await mine.page("/pricing", title="Mine", content="my pricing")
    await theirs.page("/pricing", title="Theirs", content="their pricing")
    status, _ = await call(
        theirs.gateway, "POST", f"{theirs.base}/domains", theirs.headers, json={"domain": mine.hostname, "type": "web"}
    )
    assert status in (201, 409)

    response = await edge.get(mine.hostname, "/pricing.md")

    assert (response.status, await response.text()) == (200, "my pricing")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_a_write_to_a_routed_page_is_a_405_not_passed_on(edge: Edge, apps: Apps, method: str):
    app = await apps.new()
    await app.page("/pricing", title="Pricing", content="the page")

    response = await edge.get(app.hostname, "/pricing", method=method, data=b"x")

    assert response.status == 405 and response.headers["Allow"] == "GET, HEAD"


@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]:8087", "edge", "LOCALHOST:80"])
async def test_an_address_or_a_single_label_reaches_only_the_edges_own_endpoints(edge: Edge, apps: Apps, host: str):
    app = await apps.new()
    await app.page("/pricing", title="Pricing", content="the page")

    response = await edge.get(host, "/pricing")

    assert response.status == 404 and "the page" not in await response.text()
    assert (await edge.get(host, "/healthz")).status == 200
