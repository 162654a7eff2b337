"""The simulations service's HTTP routing: its public contract's handlers, then its internal endpoints."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.simulations import contract, views

HANDLERS = {"simulation_runs_list": views.runs_list}


def setup_routes(app: web.Application) -> None:
    router = app.router
    register_handlers(router, contract.ROUTES, HANDLERS)
    router.add_post("/internal/tasks", views.internal_tasks_create, name="internal_tasks_create")
    router.add_post("/internal/environments", views.internal_environments_create, name="internal_environments_create")
    router.add_post("/internal/runs", views.internal_runs_create, name="internal_runs_create")
