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


async def test_the_demo_apps_llms_txt_and_sitemap_list_its_published_pages_on_the_first_visit(stack: Stack, edge: Edge):
    await seed._seed_content(stack.database.admin_dsn)
    await seed._seed_apps(stack.database.admin_dsn)
    host = seed.APP_DOMAIN["domain"]
    published = [page for page in seed.PAGES if page["status"] == "published"]
    llms = await edge.get(host, "/llms.txt", {})
    sitemap = await edge.get(host, "/sitemap.xml", {})
    assert (llms.status, sitemap.status) == (200, 200)
    llms_text, sitemap_text = await llms.text(), await sitemap.text()
    for page in published:
        assert page["title"] in llms_text, page["slug"]
        assert f"/{page['slug']}</loc>" in sitemap_text, page["slug"]
    drafts = [page for page in seed.PAGES if page["status"] != "published"]
    assert drafts and all(f"/{page['slug']}</loc>" not in sitemap_text for page in drafts)
