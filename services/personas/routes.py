"""The personas service's HTTP routing: the handlers of its public contract, then its internal endpoint."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.personas import contract, views

HANDLERS = (
    views.personas_list,
    views.personas_create,
    views.personas_get,
    views.personas_update,
    views.personas_delete,
    views.topics_list,
    views.topics_create,
    views.prompt_suggestions_regenerate,
    views.prompt_suggestions_list,
    views.prompt_suggestions_review,
)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
    register_handlers(app.router, endpoints_of(contract.PART), (internal_webhook_changes,))
