"""What the apps service's requests may hold: bodies, queries and the route candidates' cursor."""

from __future__ import annotations

from datetime import datetime

from marshmallow import fields, validate

from libs.common.cursors import PageCursor
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    ROUTE_PATH_MAX,
    QueryBoolean,
    StrictString,
    UuidString,
    hostname_validators,
    json_object_field,
    length,
    route_path_validators,
    slug_validators,
)
from services.apps.schemas.values import (
    CANDIDATES_PAGE_DEFAULT,
    CANDIDATES_PAGE_MAX,
    DELETED_PAGE_DEFAULT,
    DELETED_PAGE_MAX,
    DOCUMENT_STATUSES,
    DOMAIN_TYPES,
    MAX_IMPORT_ROUTES,
    NAME_MAX,
    ORIGIN_MAX,
    RESOURCE_TYPES,
    ROUTES_PAGE_DEFAULT,
    ROUTES_PAGE_MAX,
    TARGET_TYPES,
)


class AppCreate(ApiSchema):
    name = StrictString(required=True, validate=length(1, NAME_MAX))
    slug = StrictString(validate=slug_validators())
    metadata = json_object_field(load_default=dict)


class AppUpdate(ApiSchema):
    name = StrictString(validate=length(1, NAME_MAX))
    slug = StrictString(validate=slug_validators())
    metadata = json_object_field()


class AppConfigUpdate(ApiSchema):
    config = json_object_field(required=True)


class ResourceCreate(ApiSchema):
    resource_id = UuidString(required=True)
    resource_type = StrictString(load_default="product", validate=validate.OneOf(RESOURCE_TYPES))


class DomainCreate(ApiSchema):
    domain = StrictString(required=True, validate=hostname_validators())
    type = StrictString(load_default="web", validate=validate.OneOf(DOMAIN_TYPES))
    origin = StrictString(validate=length(1, ORIGIN_MAX))


def candidate_position(path: str) -> str:
    """A route candidates cursor's position: the last candidate's document path."""
    if len(path) > ROUTE_PATH_MAX:
        raise ValueError(path)
    return path


def route_position(created_at: str) -> str:
    """A routes cursor's position: the last route's creation time (ISO 8601, with its zone)."""
    if datetime.fromisoformat(created_at).tzinfo is None:
        raise ValueError(created_at)
    return created_at


class RouteCandidatesQuery(ApiSchema):
    product_id = UuidString(
        metadata={
            "description": "Only this product's documents; without it, the documents of every product that is a"
            " resource of the app. A product that is not a resource of the app is 404."
        }
    )
    status = fields.String(load_default="published", validate=validate.OneOf(DOCUMENT_STATUSES))
    include_routed = QueryBoolean(load_default=False)
    # Beyond the contract: without either, the whole list is one answer, streamed as it is read.
    limit = fields.Integer(
        validate=validate.Range(min=1, max=CANDIDATES_PAGE_MAX),
        metadata={
            "description": f"Beyond the contract: answer one page of at most this many candidates (default"
            f" {CANDIDATES_PAGE_DEFAULT} when only `cursor` is sent), with `nextCursor`. Without `limit` and"
            " `cursor` the answer is the whole list, as the contract has it."
        },
    )
    cursor = PageCursor(
        candidate_position,
        metadata={
            "description": "Beyond the contract: the `nextCursor` of the page before; the page starts after that"
            " page's last candidate. Opaque; any other value is 422."
        },
    )


class RoutesQuery(ApiSchema):
    """Beyond the contract: the query of an app's routes list."""

    limit = fields.Integer(
        load_default=ROUTES_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=ROUTES_PAGE_MAX),
        metadata={"description": f"At most this many routes (default {ROUTES_PAGE_DEFAULT})."},
    )
    cursor = PageCursor(
        route_position,
        metadata={
            "description": "The `nextCursor` of the page before; the page starts after that page's last route."
            " Opaque; any other value is 422."
        },
    )
    path_prefix = StrictString(
        validate=route_path_validators(),
        metadata={
            "description": "Only routes whose path starts with this one, both compared in canonical form (so"
            " `/caf%C3%A9` finds `/café/x`); a trailing slash is kept, so `/docs/` does not find `/docs-old`."
        },
    )
    target_id = UuidString(metadata={"description": "Only routes to this content document."})


class RouteItem(ApiSchema):
    path = StrictString(required=True, validate=route_path_validators())
    target_id = UuidString(required=True)
    target_type = StrictString(load_default="product_document", validate=validate.OneOf(TARGET_TYPES))


class RouteImport(ApiSchema):
    routes = fields.List(
        fields.Nested(RouteItem), required=True, validate=validate.Length(min=1, max=MAX_IMPORT_ROUTES)
    )


class RouteUpdate(ApiSchema):
    path = StrictString(validate=route_path_validators())
    target_id = UuidString()
    target_type = StrictString(validate=validate.OneOf(TARGET_TYPES))


class DeletedAppsQuery(ApiSchema):
    """The query of the list of deleted apps."""

    limit = fields.Integer(
        load_default=DELETED_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=DELETED_PAGE_MAX),
        metadata={"description": f"At most this many apps (default {DELETED_PAGE_DEFAULT})."},
    )
    cursor = PageCursor(
        datetime.fromisoformat,
        metadata={
            "description": "The `nextCursor` of the page before; the page starts after that page's last app."
            " Opaque; any other value is 422."
        },
    )
