"""The personas service's HTTP routing: the handlers of its public contract."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.personas import contract, views

HANDLERS = {
    "personas_list": views.personas_list,
    "personas_create": views.personas_create,
    "personas_update": views.personas_update,
    "personas_delete": views.personas_delete,
    "topics_list": views.topics_list,
    "topics_create": views.topics_create,
    "prompt_suggestions_regenerate": views.suggestions_regenerate,
    "prompt_suggestions_list": views.suggestions_list,
    "prompt_suggestions_review": views.suggestions_review,
}


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
