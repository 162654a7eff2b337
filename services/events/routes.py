"""The events service's HTTP routing: the handlers of its public contract."""

from __future__ import annotations

from aiohttp import web

from libs.contract.route import register_handlers
from services.events import contract, views

HANDLERS = (
    views.webhook_endpoints_create,
    views.webhook_endpoints_list,
    views.webhook_endpoints_get,
    views.webhook_endpoints_update,
    views.webhook_endpoints_delete,
    views.webhook_endpoints_rotate_secret,
    views.webhook_endpoints_test,
    views.webhook_deliveries_list,
    views.webhook_deliveries_retry,
    views.audit_events_list,
)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
