"""The analytics part's HTTP routing: the handlers of its public contract."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.analytics import contract, report_views, run_views, views

HANDLERS = (
    views.engines_list,
    views.answers_ingest,
    views.answers_list,
    views.answers_get,
    views.answers_reanalyse,
    run_views.prompt_runs_create,
    run_views.prompt_runs_list,
    run_views.prompt_runs_get,
    run_views.prompt_runs_cancel,
    report_views.analytics_overview,
    report_views.analytics_query,
)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
