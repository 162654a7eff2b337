"""AI traffic's HTTP routing: its public contract's handlers, then its internal endpoint."""

from __future__ import annotations

from aiohttp import web

from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.traffic import contract, views

HANDLERS = (
    views.ai_traffic_events_ingest,
    views.ai_traffic_logs_list,
    views.ai_traffic_summary,
    views.ai_traffic_bots_list,
)


INTERNAL_HANDLERS = (views.internal_traffic_summary,)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
    register_handlers(app.router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
