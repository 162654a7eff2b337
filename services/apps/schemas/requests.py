"""What the apps service's requests may hold: bodies, queries and the route candidates' cursor."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from marshmallow import fields, validate

from libs.common.encoding import dumps, loads
from libs.common.schemas import ApiSchema
from libs.common.validators import (
    ROUTE_PATH_MAX,
    QueryBoolean,
    StrictString,
    UuidString,
    hostname_validators,
    is_uuid,
    json_object_field,
    length,
    route_path_validators,
    slug_validators,
)
from services.apps.schemas.values import (
    CANDIDATES_PAGE_DEFAULT,
    CANDIDATES_PAGE_MAX,
    DOCUMENT_STATUSES,
    DOMAIN_TYPES,
    MAX_IMPORT_ROUTES,
    MAX_RESOLVE_IDS,
    NAME_MAX,
    ORIGIN_MAX,
    RESOURCE_TYPES,
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


class DomainResolve(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=validate.Length(min=1, max=MAX_RESOLVE_IDS))


def encode_cursor(file_path: str, target_id: str) -> str:
    """The cursor of the page after the candidate of this document: its path and id, base64url JSON."""
    return base64.urlsafe_b64encode(dumps([file_path, target_id])).rstrip(b"=").decode()


class CandidatesCursor(fields.String):
    """A `nextCursor` as a page of route candidates gave it, loaded as the (path, id) the next page starts after."""

    default_error_messages = {"invalid_cursor": "Not a cursor of this list: send nextCursor as a page gave it."}

    # A field loading a pair, not a string: marshmallow's String is typed by what it loads.
    def _deserialize(  # type: ignore[override]
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> tuple[str, str]:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            decoded = loads(base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True))
        except (ValueError, binascii.Error):
            raise self.make_error("invalid_cursor") from None
        match decoded:
            case [str(path), str(target_id)] if (
                len(path) <= ROUTE_PATH_MAX and "\x00" not in path and is_uuid(target_id)
            ):
                return path, target_id.lower()
        raise self.make_error("invalid_cursor")


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
    cursor = CandidatesCursor(
        metadata={
            "description": "Beyond the contract: the `nextCursor` of the page before; the page starts after that"
            " page's last candidate. Opaque; any other value is 422."
        }
    )


class PageQuery(ApiSchema):
    path = StrictString(
        required=True,
        validate=route_path_validators(),
        metadata={"description": "A routed path of the app, as any of its equivalent spellings (`/pricing`)."},
    )


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
