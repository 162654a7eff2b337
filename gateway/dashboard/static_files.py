"""Every file a dashboard page loads (its stylesheet, logo and scripts, and the reference's),
served under /assets/ by content hash, compressed once and kept a year (gateway/edge/assets.py).

A template names one by `asset_url("dashboard.css")`: the address changes with the file, so a
browser never revalidates an unchanged one and always loads a changed one. Swagger UI's files come
from the `swagger-ui-bundle-v2` package on PyPI; nothing is loaded from another site.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aiohttp import web
from swagger_ui_bundle import swagger_ui_path

from gateway.edge.assets import Assets

STATIC = Path(__file__).parent / "static"
FILES = (
    STATIC / "dashboard.css",
    STATIC / "mark.svg",
    STATIC / "copy.js",
    STATIC / "reference.css",
    STATIC / "reference.js",
    # The chart component (templates/_chart.html): uPlot, vendored from npm (static/vendor/README.md).
    STATIC / "charts.js",
    STATIC / "vendor" / "uPlot.iife.min.js",
    STATIC / "vendor" / "uPlot.min.css",
    swagger_ui_path / "swagger-ui.css",
    swagger_ui_path / "swagger-ui-bundle.js",
)


@cache
def dashboard_assets() -> Assets:
    """Read once per process: every app of the process serves the same files."""
    return Assets(FILES)


def asset_url(name: str) -> str:
    """The hashed address of the file `name` of FILES (a template global)."""
    return dashboard_assets().url(name)


def add_routes(router: web.UrlDispatcher) -> None:
    dashboard_assets().add_route(router, "dashboard.assets")
