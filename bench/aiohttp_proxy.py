"""A bare aiohttp reverse proxy: the floor a proxy hop costs in the gateway's own stack.

What the gateway is besides a proxy (credentials, limits, the envelope, audit) is left out: one
aiohttp application forwarding each request's method, path, query, headers and body to one
upstream over kept-alive connections (one `ClientSession` a worker) and answering what came
back, run as the gateway is (gunicorn, uvloop workers, as many), on a free port.

    python -m gunicorn bench.aiohttp_proxy:app_factory  (with UPSTREAM=http://host:port)
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import aiohttp
from aiohttp import web

from bench.common import say
from bench.gunicorn_app import gunicorn_app
from libs.contract.parts import GATEWAY

SESSION = web.AppKey("session", aiohttp.ClientSession)
# Hop-by-hop headers, and those the client library sets itself.
NOT_FORWARDED = frozenset({"host", "connection", "keep-alive", "transfer-encoding", "content-length"})


async def forward(request: web.Request) -> web.Response:
    headers = {name: value for name, value in request.headers.items() if name.lower() not in NOT_FORWARDED}
    upstream = os.environ["UPSTREAM"] + request.rel_url.raw_path_qs
    body = await request.read()
    async with request.app[SESSION].request(request.method, upstream, headers=headers, data=body or None) as answer:
        content = await answer.read()
        kept = {name: value for name, value in answer.headers.items() if name.lower() not in NOT_FORWARDED}
        return web.Response(body=content, status=answer.status, headers=kept)


async def session_ctx(app: web.Application) -> AsyncIterator[None]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        app[SESSION] = session
        yield


async def app_factory() -> web.Application:
    app = web.Application()
    app.cleanup_ctx.append(session_ctx)
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


@contextmanager
def aiohttp_proxy(upstream: str) -> Iterator[str]:
    """The bare proxy to `upstream` ("host:port") with the gateway's number of workers; yields its base URL."""
    with gunicorn_app("bench.aiohttp_proxy:app_factory", GATEWAY.workers, {"UPSTREAM": f"http://{upstream}"}) as url:
        say(f"bare aiohttp proxy: {GATEWAY.workers} workers at {url}, proxying to {upstream}")
        yield url
