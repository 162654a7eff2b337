"""GET /docs: the API reference, Swagger UI rendering /api/v1/openapi.json.

Swagger UI's files come from the `swagger-ui-bundle-v2` package on PyPI and are served by the
gateway under /docs/assets/: the page loads nothing from another site. Swagger UI 5 renders
OpenAPI 3.1, the version of the gateway's document.
"""

from __future__ import annotations

from aiohttp import web
from swagger_ui_bundle import swagger_ui_path

from gateway.dashboard.render import render

ASSETS = "/docs/assets/"


async def reference(request: web.Request) -> web.Response:
    """Public: the reference needs no account."""
    return await render(request, "docs.html", {"assets": ASSETS})


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/docs", reference, name="dashboard.reference")
    router.add_static(ASSETS, swagger_ui_path, name="dashboard.reference_assets")
