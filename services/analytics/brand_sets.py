"""What the analysis of a product's answers looks for: its brand (the gateway's) and competitors
(the personas part's), read from their owners and kept a few seconds, so a batch of answers of one
product asks once. Every analysis records the competitor-set version it was made with."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from libs.common.internal_token import Caller, Organization, service_caller
from libs.contract.clients import GatewayClient, PersonasClient
from services.analytics.analysis.citations import Owner, owners
from services.analytics.analysis.mentions import Tracked

# How long a product's brand set is kept: a change reaches analyses within this.
KEEP_SECONDS = 2.0
BRAND = "brand"


@dataclass(frozen=True)
class BrandSet:
    brand: dict[str, Any]
    version: int
    tracked: tuple[Tracked, ...]
    holders: tuple[Owner, ...]
    # competitor id -> its name, for the answers' rows
    names: dict[str, str]


def brand_set(brand: dict[str, Any], competitors: dict[str, Any]) -> BrandSet:
    """The tracked brands from the owners' answers: the product's brand under the key "brand",
    each competitor under its id."""
    tracked = [Tracked(BRAND, "brand", brand["name"], tuple(brand["aliases"]))]
    domains = {BRAND: brand["domains"]}
    names = {BRAND: brand["name"]}
    for competitor in competitors["competitors"]:
        tracked.append(Tracked(competitor["id"], "competitor", competitor["name"], tuple(competitor["aliases"])))
        domains[competitor["id"]] = competitor["domains"]
        names[competitor["id"]] = competitor["name"]
    return BrandSet(brand, int(competitors["version"]), tuple(tracked), tuple(owners(tracked, domains)), names)


class BrandSets:
    """Brand sets by product, asked of their owners on a miss and kept `KEEP_SECONDS`."""

    def __init__(self, gateway: GatewayClient, personas: PersonasClient, clock: Callable[[], float] = time.monotonic):
        self._gateway = gateway
        self._personas = personas
        self._clock = clock
        self._kept: dict[str, tuple[float, BrandSet]] = {}

    async def get(self, organization_id: str, product_id: str) -> BrandSet:
        kept = self._kept.get(product_id)
        if kept is not None and self._clock() - kept[0] < KEEP_SECONDS:
            return kept[1]
        caller = _caller(organization_id)
        product = await self._gateway.product_brand(caller, product_id)
        competitors = await self._personas.competitor_set(caller, product_id)
        found = brand_set(product["brand"], competitors)
        self._kept = {key: value for key, value in self._kept.items() if self._clock() - value[0] < KEEP_SECONDS}
        self._kept[product_id] = (self._clock(), found)
        return found


def _caller(organization_id: str) -> Caller:
    # Only the organization's id is read by the owners; its slug and name are not known here.
    return service_caller("analytics", Organization(id=organization_id, slug="", name=""))
