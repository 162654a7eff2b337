"""The deprecated web-domain routing config: what makes one (its shape is `LEGACY_CONFIG`, in
services/apps/shapes.py), and the product-scoped domain that carries it.

Publishing is retired (the contract: publishing "no longer affects request routing"), so a config
made now is stored as `pending` with no publication; the endpoint only reads configs back.
"""

from __future__ import annotations

import uuid
from typing import Any

from marshmallow import fields

from libs.common.errors import ValidationFailed
from libs.common.schemas import load_data
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    StrictBoolean,
    StrictString,
    UuidString,
    hostname_validators,
    length,
    normalize_hostname,
    normalize_route_path,
    route_path_validators,
)
from services.apps.domains import register_domain
from services.apps.edge import EdgeProvider
from services.apps.queries import apps as app_queries
from services.apps.queries import domains as domain_queries
from services.apps.schemas.values import ORIGIN_MAX
from services.apps.shapes import LEGACY_CONFIG

CONFIG_VERSION = 1
MODE = "full_shadow"


class Hostname(StrictString):
    """A hostname given to the operator's command: ASCII letters are lower-cased, then the spec's
    pattern applies. (The public `POST /apps/{appId}/domains` refuses upper case instead.)"""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return normalize_hostname(super()._deserialize(value, attr, data, **kwargs))


class LegacyPathInput(ApiSchema):
    path_prefix = StrictString(required=True, validate=route_path_validators())
    app_id = UuidString(required=True)
    preserve_path_prefix = StrictBoolean(load_default=True)


class LegacyDomainCreate(ApiSchema):
    """What the admin command (and the demo seed) give to create a legacy routing domain."""

    id = UuidString()  # fixed by the demo seed, so that seeding twice changes nothing
    product_id = UuidString(required=True)
    domain = Hostname(required=True, validate=hostname_validators())
    fallback_origin = StrictString(required=True, validate=length(1, ORIGIN_MAX))
    paths = fields.List(fields.Nested(LegacyPathInput), load_default=list)


LEGACY_DOMAIN_CREATE = LegacyDomainCreate()


def routing_config(hostname: str, fallback_origin: str, paths: list[dict[str, Any]]) -> dict[str, Any]:
    """A config in the contract's shape: each path prefix sends its requests to an app."""
    return LEGACY_CONFIG.of(
        {
            "version": CONFIG_VERSION,
            "hostname": hostname,
            "mode": MODE,
            "fallback_origin": fallback_origin,
            "paths": [
                {**path, "id": str(uuid.uuid4()), "path_prefix": normalize_route_path(path["path_prefix"])}
                for path in paths
            ],
        }
    )


def load_legacy_domain(request: dict[str, Any]) -> dict[str, Any]:
    """The fields of LegacyDomainCreate, checked; anything invalid is a 422 with field details."""
    data: dict[str, Any] = load_data(LEGACY_DOMAIN_CREATE, request)
    return data


async def create_legacy_domain(
    cur: Any, edge: EdgeProvider, organization_id: str, data: dict[str, Any]
) -> dict[str, Any]:
    """A product-scoped web domain with a legacy routing config, in the caller's transaction.

    `data` comes from load_legacy_domain; every destination must be a live app of the organization.
    """
    wanted = {path["app_id"] for path in data["paths"]}
    unknown = sorted(wanted - await app_queries.live_app_ids(cur, organization_id, sorted(wanted)))
    if unknown:
        raise ValidationFailed(details={"paths": f"No such app in this organization: {', '.join(unknown)}."})
    domain = await register_domain(
        cur,
        edge,
        organization_id,
        {
            "id": data.get("id"),
            "scope": "product",
            "product_id": data["product_id"],
            "domain": data["domain"],
            "type": "web",
            "origin": data["fallback_origin"],
        },
    )
    config = routing_config(data["domain"], data["fallback_origin"], data["paths"])
    await domain_queries.insert_legacy_routing(cur, domain["id"], config)
    return domain
