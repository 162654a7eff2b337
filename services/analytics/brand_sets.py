"""What the analysis of a product's answers looks for: its brand (the gateway's) and competitors
(the personas part's), read from their owners once for each batch of answers of the product. Every
analysis records the competitor-set version it was made with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from libs.common.clients import GatewayClient, PersonasClient
from libs.common.internal_token import Caller, Organization, service_caller
from libs.contract import internal_bodies as b
from services.analytics.analysis.citations import Owner, owners
from services.analytics.analysis.mentions import Tracked

BRAND = "brand"


@dataclass(frozen=True)
class BrandSet:
    brand: dict[str, Any]
    version: int
    tracked: tuple[Tracked, ...]
    holders: tuple[Owner, ...]
    # competitor id -> its name, for the answers' rows
    names: dict[str, str]


def brand_set(brand: dict[str, Any], competitors: b.CompetitorSet) -> BrandSet:
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
    """Brand sets by product, asked of their owners; `batch()` is a view that asks once a product
    for one batch of answers, so an analysis never uses a set older than its batch."""

    def __init__(self, gateway: GatewayClient, personas: PersonasClient) -> None:
        self._gateway = gateway
        self._personas = personas

    async def read(self, organization_id: str, product_id: str) -> BrandSet:
        caller = caller_for(organization_id)
        product = await self._gateway.product_brand(caller, product_id)
        competitors = await self._personas.competitor_set(caller, product_id)
        return brand_set(product["brand"], competitors)

    def batch(self) -> Callable[[str, str], Awaitable[BrandSet]]:
        kept: dict[str, BrandSet] = {}

        async def get(organization_id: str, product_id: str) -> BrandSet:
            if product_id not in kept:
                kept[product_id] = await self.read(organization_id, product_id)
            return kept[product_id]

        return get


def caller_for(organization_id: str) -> Caller:
    """The analytics part calling another part for an organization in its background work."""
    # Only the organization's id is read by the owners; its slug and name are not known here.
    return service_caller("analytics", Organization(id=organization_id, slug="", name=""))
