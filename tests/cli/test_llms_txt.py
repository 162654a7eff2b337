"""`aivis apps llms-txt APP [--full]`: the app's llms.txt (or llms-full.txt) printed as the API wrote it."""

from __future__ import annotations

import httpx2 as httpx

from tests.cli.conftest import Aivis, FakeApi, error

APP_ID = "5a5a5a5a-1111-4222-8333-444455556666"
INDEX = "# Docs\n\n> For agents.\n\n## Pages\n\n- [Pricing](https://docs.example.com/pricing): Plans\n"


def text(body: str) -> httpx.Response:
    return httpx.Response(200, text=body, headers={"Content-Type": "text/plain; charset=utf-8"})


def test_llms_txt_prints_the_apps_index_as_written(run: Aivis, api: FakeApi):
    api.on("GET", f"/api/v1/apps/{APP_ID}/llms.txt", text(INDEX))
    result = run("apps", "llms-txt", APP_ID)
    assert result.exit_code == 0, result.output
    assert result.stdout == INDEX
    [request] = api.requests
    assert request.headers["x-api-key"] == "avk_test_key"


def test_full_prints_every_page_in_full(run: Aivis, api: FakeApi):
    full = "# Docs\n\n## [Pricing](https://docs.example.com/pricing)\n\n### Plans\n\nFree and paid.\n\n"
    api.on("GET", f"/api/v1/apps/{APP_ID}/llms-full.txt", text(full))
    result = run("apps", "llms-txt", APP_ID, "--full")
    assert result.exit_code == 0, result.output
    assert result.stdout == full
    assert [request.url.path for request in api.requests] == [f"/api/v1/apps/{APP_ID}/llms-full.txt"]


def test_an_app_without_a_web_domain_is_the_apis_conflict(run: Aivis, api: FakeApi):
    message = "the app has no web domain: add one"
    api.on("GET", f"/api/v1/apps/{APP_ID}/llms.txt", error(409, "CONFLICT", message))
    result = run("apps", "llms-txt", APP_ID)
    assert result.exit_code == 6
    assert message in result.stderr and result.stdout == ""
