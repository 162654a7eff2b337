"""The simulations service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.simulations import contract, run_views, task_views, views

HANDLERS = (
    views.simulation_runs_list,
    views.simulation_runs_get,
    run_views.simulation_runs_create,
    run_views.simulation_runs_cancel,
    run_views.simulation_runs_steps,
    run_views.simulation_analytics,
    task_views.simulation_tasks_create,
    task_views.simulation_tasks_list,
    task_views.simulation_tasks_get,
    task_views.simulation_tasks_update,
    task_views.simulation_tasks_delete,
    task_views.simulation_environments_create,
    task_views.simulation_environments_list,
    task_views.simulation_environments_get,
)
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
