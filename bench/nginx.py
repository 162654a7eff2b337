"""nginx as the reference reverse proxy: the floor a proxy hop costs on this machine.

A plain configuration — one upstream with a pool of kept-alive connections, HTTP/1.1 to it,
no access log — written to a temporary directory and run in the foreground as a child on a
free port, so nothing of the system's nginx (its config, its service, its logs) is touched.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import ensure_program, say
from libs.local.ports import free_port

READY_TIMEOUT_SECONDS = 10.0

CONFIG = """
daemon off;
worker_processes auto;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream service {{
        server {upstream};
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://service;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }}
    }}
}}
"""


def wait_listening(
    port: int, process: subprocess.Popen[bytes], log: Path, seconds: float = READY_TIMEOUT_SECONDS
) -> None:
    """Until the child `process` listens on `port`; its exit (with its `log`) or a timeout ends the run."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{process.args[0]} exited: {log.read_text() if log.is_file() else process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{process.args[0]} did not listen on {port} within {seconds:g}s")


@contextmanager
def _nginx(config: str, what: str) -> Iterator[str]:
    """nginx with `config` (a template of `dir` and `port`) on a free port, `what` it does said; yields its base URL."""
    binary = ensure_program("nginx", "nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    with tempfile.TemporaryDirectory(prefix="bench-nginx-") as directory:
        port = free_port()
        path = Path(directory, "nginx.conf")
        path.write_text(config.replace("{dir}", directory).replace("{port}", str(port)))
        say(f"nginx: {binary} on port {port}, {what}")
        log = Path(directory, "error.log")
        process = subprocess.Popen(
            [binary, "-c", str(path), "-p", directory, "-e", str(log)], stderr=subprocess.DEVNULL
        )
        try:
            wait_listening(port, process, log)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextmanager
def nginx_proxy(upstream: str) -> Iterator[str]:
    """A reverse proxy to `upstream` ("host:port"); yields its base URL."""
    with _nginx(CONFIG.format(dir="{dir}", port="{port}", upstream=upstream), f"proxying to {upstream}") as url:
        yield url


STATIC_CONFIG = """
daemon off;
worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    default_type text/html;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""


@contextmanager
def nginx_static(root: Path, workers: int = 1) -> Iterator[str]:
    """nginx serving the files under `root` with `workers` processes; yields its base URL."""
    config = STATIC_CONFIG.format(dir="{dir}", port="{port}", root=root, workers=workers)
    with _nginx(config, f"serving {root}") as url:
        yield url
