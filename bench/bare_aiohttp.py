"""The ceiling of the edge's stack: a bare aiohttp application under the same gunicorn worker
(uvloop) answering one file's bytes from memory on every path — no middleware, no lookup, no log.

`bare_aiohttp(path, workers)` runs it on a free port and yields its base URL (bench/edge.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aiohttp import web

from bench.common import free_port, say
from libs.contract.parts import ROOT
from libs.local.processes import is_ready

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
    port = free_port()
    command = [
        sys.executable, "-m", "gunicorn", "bench.bare_aiohttp:app_factory", "--bind", f"127.0.0.1:{port}",
        "--worker-class", "aiohttp.GunicornUVLoopWebWorker", "--workers", str(workers), "--chdir", str(ROOT),
        "--no-control-socket", "--graceful-timeout", "2",
    ]  # fmt: skip
    say(f"bare aiohttp: {workers} worker(s) on port {port}, answering {body}")
    process = subprocess.Popen(
        command, env={**os.environ, BODY_FILE: str(body)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while not is_ready(port):
            if process.poll() is not None:
                raise SystemExit(f"the bare aiohttp server exited with status {process.returncode}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
