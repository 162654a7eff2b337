"""Which App route serves each page an answer cites: asked of the apps part, which owns the Apps,
their verified domains and routes (`POST /internal/routes/by-url`), for each answer as it is analysed.
A link records the route as it was at the analysis; analysing the answer again reads it afresh."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from libs.common.clients import AppsClient
from services.analytics.brand_sets import caller_for

# The most URLs the apps part takes in one call.
URLS_PER_CALL = 500


@dataclass(frozen=True)
class RouteLink:
    app_id: str
    route_id: str
    path: str


class RouteLinks:
    def __init__(self, apps: AppsClient) -> None:
        self._apps = apps

    async def of(self, organization_id: str, urls: Sequence[str]) -> dict[str, RouteLink]:
        """url -> the organization's App route serving it, for those of `urls` one serves."""
        caller = caller_for(organization_id)
        asked = list(dict.fromkeys(urls))
        found: dict[str, RouteLink] = {}
        for first in range(0, len(asked), URLS_PER_CALL):
            routes = await self._apps.routes_by_url(caller, asked[first : first + URLS_PER_CALL])
            found.update({url: RouteLink(r["appId"], r["routeId"], r["path"]) for url, r in routes.items()})
        return found
