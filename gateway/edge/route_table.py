"""Every public route of the API: the concatenation of each part's declared contract.

Compiled once at startup into handlers (gateway/edge/routes.py, gateway/edge/proxy.py) and into the
OpenAPI document (gateway/edge/openapi.py). Each `contract.py` holds declarations only, so the
gateway never imports a service's handlers or queries.
"""

from __future__ import annotations

from gateway import contract as gateway
from libs.contract.route import CONTRACT_DATE, LEGACY_ROUTING_SUNSET, Route
from services.analytics import contract as analytics
from services.apps import contract as apps
from services.content import contract as content
from services.events import contract as events
from services.personas import contract as personas
from services.search import contract as search
from services.simulations import contract as simulations
from services.traffic import contract as traffic

__all__ = ["CONTRACT_DATE", "LEGACY_ROUTING_SUNSET", "ROUTES", "Route"]

ROUTES: tuple[Route, ...] = (
    *gateway.ROUTES,
    *content.ROUTES,
    *search.ROUTES,
    *apps.ROUTES,
    *personas.ROUTES,
    *simulations.ROUTES,
    *events.ROUTES,
    *analytics.ROUTES,
    *traffic.ROUTES,
)
