"""A benchmark's own aiohttp application run as the parts run (gunicorn, uvloop workers) on a free
port: the bare servers that measure what the product's stack costs (bench/bare_aiohttp.py,
bench/aiohttp_proxy.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from bench.nginx import wait_listening
from libs.contract.parts import ROOT
from libs.local.ports import free_port

# gunicorn and its workers' imports take their time on a loaded machine.
READY_SECONDS = 120.0


@contextmanager
def gunicorn_app(factory: str, workers: int, environ: Mapping[str, str]) -> Iterator[str]:
    """`factory` ("module:function") under gunicorn with `workers` workers and `environ` added;
    yields its base URL once it listens, and stops it afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", factory, "--bind", f"127.0.0.1:{port}"]
    command += ["--worker-class", "aiohttp.GunicornUVLoopWebWorker", "--workers", str(workers)]
    command += ["--chdir", str(ROOT), "--no-control-socket", "--log-level", "warning", "--graceful-timeout", "2"]
    process = subprocess.Popen(
        command, env={**os.environ, **environ}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(port, process, Path(os.devnull), READY_SECONDS)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
