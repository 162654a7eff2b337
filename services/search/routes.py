"""The search service's HTTP routing: the handlers of its public contract."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.search import contract, views

HANDLERS = (views.content_search,)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
