"""What `make run` prints about the edge (deploy/run.py's banner) works: each of its curl commands,
sent to the edge of a stack holding the demo (deploy/seed.py), gets the demo App's answer."""

from __future__ import annotations

import shlex
from urllib.parse import urlsplit

from deploy import run, seed
from tests.conftest import Stack
from tests.edge import conftest as edge_requests
from tests.edge.conftest import Edge, edge_url

edge = edge_requests.edge  # the edge tests' fixture: requests sent to the stack's edge


async def test_the_banner_says_how_to_reach_the_demo_app_through_the_edge(stack: Stack, edge: Edge):
    await seed._seed_content(stack.database.admin_dsn)
    await seed._seed_apps(stack.database.admin_dsn)
    port = urlsplit(edge_url(stack)).port
    assert port is not None
    banner = run.banner(seed.Demo("a-key", "demo@example.com", "a-password"), 8080, port)

    commands = [shlex.split(line) for line in banner.splitlines() if line.strip().startswith("curl -H 'Host:")]

    assert len(commands) == 3
    for command in commands:
        headers = dict(value.split(": ", 1) for flag, value in zip(command, command[1:], strict=False) if flag == "-H")
        url = urlsplit(command[-1])
        assert headers["Host"] == seed.APP_DOMAIN["domain"] and url.port == port
        response = await edge.get(headers.pop("Host"), url.path, headers)
        assert response.status == 200, command
        text = await response.text()
        if url.path == "/pricing":
            markdown = headers.get("Accept") == "text/markdown"
            assert response.headers["Content-Type"].startswith("text/markdown" if markdown else "text/html")
            assert "Pricing" in text
        else:
            assert text.startswith("# ")  # llms.txt
