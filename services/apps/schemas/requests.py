"""What the apps service's requests may hold: bodies, queries and the route candidates' cursor."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
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


class DomainResolve(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=validate.Length(min=1, max=MAX_RESOLVE_IDS))


def encode_cursor(position: str, item_id: str) -> str:
    """The cursor of the page after an item of a list: its position (a path, a time) and id, base64url JSON."""
    return base64.urlsafe_b64encode(dumps([position, item_id])).rstrip(b"=").decode()


class PageCursor(fields.String):
    """A `nextCursor` as a page of a list gave it, loaded as the (position, id) the next page starts after.

    Each list says which positions it gives (`accepts`); anything else is 422.
    """

    default_error_messages = {"invalid_cursor": "Not a cursor of this list: send nextCursor as a page gave it."}

    def accepts(self, position: str) -> bool:
        raise NotImplementedError

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
            case [str(position), str(item_id)] if (
                "\x00" not in position and is_uuid(item_id) and self.accepts(position)
            ):
                return position, item_id.lower()
        raise self.make_error("invalid_cursor")


class CandidatesCursor(PageCursor):
    """A route candidates cursor: the last candidate's document path and id."""

    def accepts(self, position: str) -> bool:
        return len(position) <= ROUTE_PATH_MAX


class RoutesCursor(PageCursor):
    """A routes cursor: the last route's creation time (ISO 8601, with its zone) and id."""

    def accepts(self, position: str) -> bool:
        try:
            return datetime.fromisoformat(position).tzinfo is not None
        except ValueError:
            return False


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


class RoutesQuery(ApiSchema):
    """Beyond the contract: the query of an app's routes list."""

    limit = fields.Integer(
        load_default=ROUTES_PAGE_DEFAULT,
        validate=validate.Range(min=1, max=ROUTES_PAGE_MAX),
        metadata={"description": f"At most this many routes (default {ROUTES_PAGE_DEFAULT})."},
    )
    cursor = RoutesCursor(
        metadata={
            "description": "The `nextCursor` of the page before; the page starts after that page's last route."
            " Opaque; any other value is 422."
        }
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
