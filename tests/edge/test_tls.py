"""TLS in front of the edge: Debian's Caddy with its internal CA and on-demand certificates that ask
the edge whether a hostname is a verified App domain (deploy/caddy/Caddyfile does the same with ACME)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from libs.local.ports import free_port
from tests.conftest import Stack
from tests.edge.conftest import Apps, edge_url
from tests.factories import eventually
from tests.integration.support import call

pytestmark = pytest.mark.skipif(shutil.which("caddy") is None, reason="needs Debian's caddy (make tools)")

CADDYFILE = """{{
	admin off
	local_certs
	skip_install_trust
	http_port {http_port}
	https_port {https_port}
	on_demand_tls {{
		ask http://{edge}/tls/ask
	}}
}}

https:// {{
	tls {{
		on_demand
	}}
	reverse_proxy {edge}
}}
"""


@pytest.fixture
def caddy(stack: Stack, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """Caddy on free ports in front of the stack's edge; its port and its CA's root certificate."""
    https_port = free_port()
    config = tmp_path / "Caddyfile"
    edge = urlsplit(edge_url(stack)).netloc
    config.write_text(CADDYFILE.format(http_port=free_port(), https_port=https_port, edge=edge))
    environ = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path)}
    process = subprocess.Popen(
        ["caddy", "run", "--config", str(config), "--adapter", "caddyfile"],
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield https_port, tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    finally:
        process.terminate()
        process.wait(10)


async def fetch(port: int, root: Path, hostname: str, path: str) -> bytes:
    """GET `path` of `hostname` over HTTPS at Caddy's port, the certificate checked against Caddy's CA."""
    context = ssl.create_default_context(cafile=str(root))
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname=hostname)
    try:
        request = f"GET {path} HTTP/1.1\r\nHost: {hostname}\r\nAccept: text/markdown\r\nConnection: close\r\n\r\n"
        writer.write(request.encode())
        return await asyncio.wait_for(reader.read(), 20)
    finally:
        writer.close()


async def test_caddy_serves_a_verified_domain_over_https_and_refuses_a_certificate_to_others(
    caddy: tuple[int, Path], apps: Apps
):
    port, root = caddy
    app = await apps.new()
    await app.page("/pricing", title="Pricing", content="served over TLS")
    status, body = await call(
        app.gateway, "POST", f"{app.base}/domains", app.headers, json={"domain": "claim-" + app.hostname, "type": "web"}
    )
    assert status == 201

    async def ca_ready() -> bool:
        """Caddy has made its CA and listens."""
        if not root.exists():
            return False
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return False
        writer.close()
        return True

    await eventually(ca_ready, within=20)
    answer = await fetch(port, root, app.hostname, "/pricing")

    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert answer.endswith(b"\r\n\r\nserved over TLS")
    with pytest.raises((ssl.SSLError, ConnectionError)):
        await fetch(port, root, body["data"]["domain"], "/pricing")
