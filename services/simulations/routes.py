"""The simulations service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.simulations import contract, views

HANDLERS = (views.simulation_runs_list, views.simulation_runs_get)
INTERNAL_HANDLERS = (
    views.internal_tasks_create,
    views.internal_environments_create,
    views.internal_runs_create,
    internal_webhook_changes,
)


def setup_routes(app: web.Application) -> None:
    router = app.router
    register_handlers(router, contract.ROUTES, HANDLERS)
    register_handlers(router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
