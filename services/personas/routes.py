"""The personas service's HTTP routing: the handlers of its public contract, then its internal endpoint."""

from __future__ import annotations

from aiohttp import web

from libs.common.webhook_outbox import internal_webhook_changes
from libs.contract.internal import endpoints_of
from libs.contract.route import register_handlers
from services.personas import contract, tracking_views, views

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
    tracking_views.competitors_list,
    tracking_views.competitors_create,
    tracking_views.competitors_get,
    tracking_views.competitors_update,
    tracking_views.competitors_delete,
    tracking_views.prompts_list,
    tracking_views.prompts_create,
    tracking_views.prompts_get,
    tracking_views.prompts_update,
    tracking_views.prompts_archive,
    tracking_views.prompts_unarchive,
)
INTERNAL_HANDLERS = (
    tracking_views.internal_competitor_set,
    tracking_views.internal_prompt_get,
    tracking_views.internal_product_prompts,
    tracking_views.internal_scheduled_prompts,
    internal_webhook_changes,
)


def setup_routes(app: web.Application) -> None:
    register_handlers(app.router, contract.ROUTES, HANDLERS)
    register_handlers(app.router, endpoints_of(contract.PART), INTERNAL_HANDLERS)
