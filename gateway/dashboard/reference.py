"""GET /docs: the API reference, Swagger UI rendering /api/v1/openapi.json.

Swagger UI's files come from the `swagger-ui-bundle-v2` package on PyPI and are served by the
gateway under /assets/, by content hash, compressed and cached for a year (gateway/assets.py):
a second visit downloads only the page and, when it changed, the OpenAPI document. The page
loads nothing from another site. Swagger UI 5 renders OpenAPI 3.1, the version of the
gateway's document.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aiohttp import web
from swagger_ui_bundle import swagger_ui_path

from gateway.assets import Assets
from gateway.dashboard.render import render

STATIC = Path(__file__).parent / "static"
FILES = (swagger_ui_path / "swagger-ui.css", swagger_ui_path / "swagger-ui-bundle.js", STATIC / "reference.js")


@cache
def reference_assets() -> Assets:
    """Read once per process: every app of the process serves the same files."""
    return Assets(FILES)


async def reference(request: web.Request) -> web.Response:
    """Public: the reference needs no account."""
    return await render(request, "docs.html", {"asset_url": reference_assets().url})


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/docs", reference, name="dashboard.reference")
    reference_assets().add_route(router, "dashboard.reference_assets")
