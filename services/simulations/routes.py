"""The whole route table of the simulations service."""

from __future__ import annotations

from aiohttp import web

from services.simulations import views


def setup_routes(app: web.Application) -> None:
    router = app.router
    router.add_get("/api/v1/agent-simulation/runs", views.runs_list, name="runs_list")
    router.add_post("/internal/tasks", views.internal_tasks_create, name="internal_tasks_create")
    router.add_post("/internal/environments", views.internal_environments_create, name="internal_environments_create")
    router.add_post("/internal/runs", views.internal_runs_create, name="internal_runs_create")
