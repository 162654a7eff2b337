"""The ceiling of the edge's stack: a bare aiohttp application under the same gunicorn worker
(uvloop) answering one file's bytes from memory on every path — no middleware, no lookup, no log.

`bare_aiohttp(path, workers)` runs it on a free port and yields its base URL (bench/edge.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aiohttp import web

from bench.common import say
from bench.gunicorn_app import gunicorn_app

BODY_FILE = "BENCH_BARE_BODY_FILE"


async def app_factory() -> web.Application:
    body = Path(os.environ[BODY_FILE]).read_bytes()

    async def answer(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type="text/html")

    app = web.Application()
    app.router.add_get("/readyz", answer)
    app.router.add_get("/{tail:.*}", answer)
    return app


@contextmanager
def bare_aiohttp(body: Path, workers: int) -> Iterator[str]:
    with gunicorn_app("bench.bare_aiohttp:app_factory", workers, {BODY_FILE: str(body)}) as url:
        say(f"bare aiohttp: {workers} worker(s) at {url}, answering {body}")
        yield url
