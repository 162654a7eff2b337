"""Fake upstreams: real aiohttp servers standing in for a service, as the house style asks."""

from __future__ import annotations

import asyncio

from aiohttp import web

from libs.common.middlewares import internal_auth_middleware, request_id_middleware
from libs.common.state import caller_of


def echo_upstream(secret: str) -> web.Application:
    """Answers with what it received: headers, path, query, body and the caller, verified as a service does."""

    async def echo(request: web.Request) -> web.Response:
        caller = caller_of(request)
        return web.json_response(
            {
                "path": request.path,
                "query": dict(request.query),
                "headers": dict(request.headers),
                "body": (await request.read()).decode(),
                "caller": {
                    "kind": caller.principal_kind,
                    "id": caller.principal_id,
                    "organization": caller.org.id,
                    "product": caller.product.to_dict() if caller.product else None,
                    "scopes": sorted(caller.scopes),
                    "requestId": caller.request_id,
                },
            },
            headers={"Location": "/somewhere", "X-Upstream-Secret": "must not leak"},
        )

    app = web.Application(middlewares=(request_id_middleware, internal_auth_middleware(secret, ("/",))))
    app.router.add_route("*", "/{tail:.*}", echo)
    return app


def slow_upstream(delay: float) -> web.Application:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(delay)
        return web.json_response({})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", slow)
    return app


def fixed_upstream(status: int, body: bytes, content_type: str = "application/json") -> web.Application:
    async def fixed(request: web.Request) -> web.Response:
        return web.Response(status=status, body=body, content_type=content_type)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", fixed)
    return app
