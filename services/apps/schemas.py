"""Request and response shapes of the apps service.

Responses are built as dicts by the queries and views (no marshmallow on the hot path); the
response schemas here document them in OpenAPI, and the tests check answers against them.
"""

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

NAME_MAX = 120
ORIGIN_MAX = 2048
MAX_RESOLVE_IDS = 500
MAX_IMPORT_ROUTES = 100
# Pages of route candidates, beyond the contract (docs/architecture.md, "Apps service").
CANDIDATES_PAGE_DEFAULT, CANDIDATES_PAGE_MAX = 100, 1000

RESOURCE_TYPES = ("product",)
DOMAIN_TYPES = ("web", "metric", "redirect")
DOMAIN_SCOPES = ("app", "product")
TARGET_TYPES = ("product_document",)
DOCUMENT_STATUSES = ("draft", "published")
# The full value sets the contract leaves open (docs/architecture.md, "Apps service").
PATH_STATUSES = ("available", "already_routed", "path_conflict", "invalid_path")
ACTIONS = ("create", "skip", "conflict")
ISSUES = ("already_routed", "path_conflict", "duplicate_in_request", "target_not_found")
LEGACY_MODES = ("full_shadow",)
PUBLISH_STATUSES = ("pending", "published", "failed")


# Requests.


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

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[str, str]:
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


# Responses.


class Timestamps(ApiSchema):
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    deleted_at = fields.DateTime(required=True, allow_none=True)


class AppProductRef(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    slug = fields.String(required=True)


class App(Timestamps):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    name = fields.String(required=True)
    slug = fields.String(required=True)
    metadata = fields.Raw(required=True, allow_none=True)


class AppConfig(Timestamps):
    id = fields.String(required=True)
    app_id = fields.String(required=True)
    organization_id = fields.String(required=True)
    product_id = fields.String(required=True, allow_none=True)
    config = fields.Dict(required=True)


class AppResource(Timestamps):
    id = fields.String(required=True)
    app_id = fields.String(required=True)
    resource_type = fields.String(required=True, validate=validate.OneOf(RESOURCE_TYPES))
    resource_id = fields.String(required=True)


class AppResourceWithProduct(AppResource):
    # None when the product has been deleted since it was added.
    product = fields.Nested(AppProductRef, required=True, allow_none=True)


class AppWithConfig(App):
    app_config = fields.Nested(AppConfig, required=True)


class AppDetail(AppWithConfig):
    resources = fields.List(fields.Nested(AppResource), required=True)


class AppDomain(Timestamps):
    id = fields.String(required=True)
    domain = fields.String(required=True)
    scope = fields.String(required=True, validate=validate.OneOf(DOMAIN_SCOPES))
    product_id = fields.String(required=True, allow_none=True)
    app_id = fields.String(required=True, allow_none=True)
    provider_id = fields.String(required=True)
    type = fields.String(required=True, validate=validate.OneOf(DOMAIN_TYPES))
    origin = fields.String(required=True, allow_none=True)


class AppRouteTarget(ApiSchema):
    """A content document in its reduced form, as the content service gives it."""

    id = fields.String(required=True)
    title = fields.String(required=True, allow_none=True)
    file_path = fields.String(required=True, allow_none=True)
    source_url = fields.String(required=True, allow_none=True)
    status = fields.String(required=True)
    type = fields.String(required=True, allow_none=True)
    redirect_to_url = fields.String(required=True, allow_none=True)
    product_id = fields.String(required=True)


class ExistingRoute(ApiSchema):
    id = fields.String(required=True)
    path = fields.String(required=True)


class PathConflict(ExistingRoute):
    target_type = fields.String(required=True, validate=validate.OneOf(TARGET_TYPES))
    target_id = fields.String(required=True)


class RouteCandidate(ApiSchema):
    target_type = fields.String(required=True, validate=validate.OneOf(TARGET_TYPES))
    target_id = fields.String(required=True)
    suggested_path = fields.String(required=True)
    path_status = fields.String(required=True, validate=validate.OneOf(PATH_STATUSES))
    existing_route = fields.Nested(ExistingRoute, required=True, allow_none=True)
    path_conflict = fields.Nested(PathConflict, required=True, allow_none=True)
    target = fields.Nested(AppRouteTarget, required=True)
    product = fields.Nested(AppProductRef, required=True)


class RouteCandidates(ApiSchema):
    app_id = fields.String(required=True)
    candidate_count = fields.Integer(
        required=True,
        strict=True,
        metadata={"description": "How many candidates the query lists: with `limit` or `cursor`, on all pages."},
    )
    candidates = fields.List(
        fields.Nested(RouteCandidate),
        required=True,
        metadata={"description": "In the order of their documents' paths (their suggested paths), then ids."},
    )
    next_cursor = fields.String(
        allow_none=True,
        metadata={
            "description": "Beyond the contract, only when `limit` or `cursor` was sent: the `cursor` of the next"
            " page; null on the last page."
        },
    )


class RouteInput(ApiSchema):
    path = fields.String(required=True)
    target_id = fields.String(required=True)
    target_type = fields.String(required=True)


class RoutePreviewEntry(ApiSchema):
    input = fields.Nested(RouteInput, required=True)
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    issues = fields.List(fields.String(validate=validate.OneOf(ISSUES)), required=True)
    existing_route = fields.Nested(ExistingRoute, required=True, allow_none=True)
    path_conflict = fields.Nested(PathConflict, required=True, allow_none=True)
    target = fields.Nested(AppRouteTarget, required=True, allow_none=True)
    product = fields.Nested(AppProductRef, required=True, allow_none=True)


class RoutePreview(ApiSchema):
    app_id = fields.String(required=True)
    valid = fields.Boolean(required=True)
    create_count = fields.Integer(required=True, strict=True)
    conflict_count = fields.Integer(required=True, strict=True)
    skip_count = fields.Integer(required=True, strict=True)
    routes = fields.List(fields.Nested(RoutePreviewEntry), required=True)


class AppRoute(ApiSchema):
    id = fields.String(required=True)
    app_id = fields.String(required=True)
    path = fields.String(required=True)
    target_type = fields.String(required=True, validate=validate.OneOf(TARGET_TYPES))
    target_id = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    # None when the document has been deleted since the route was made.
    target = fields.Nested(AppRouteTarget, required=True, allow_none=True)
    product = fields.Nested(AppProductRef, required=True, allow_none=True)


class RouteBatchResult(ApiSchema):
    created_count = fields.Integer(required=True, strict=True)
    routes = fields.List(fields.Nested(AppRoute), required=True)


class LegacyOrigin(ApiSchema):
    url = fields.String(required=True)


class LegacyDestination(ApiSchema):
    type = fields.String(required=True, validate=validate.OneOf(("app",)))
    app_id = fields.String(required=True)


class LegacyPath(ApiSchema):
    id = fields.String(required=True)
    path_prefix = fields.String(required=True)
    destination = fields.Nested(LegacyDestination, required=True)
    preserve_path_prefix = fields.Boolean(required=True)


class LegacyConfig(ApiSchema):
    version = fields.Integer(required=True, strict=True)
    hostname = fields.String(required=True)
    mode = fields.String(required=True, validate=validate.OneOf(LEGACY_MODES))
    fallback_origin = fields.Nested(LegacyOrigin, required=True)
    paths = fields.List(fields.Nested(LegacyPath), required=True)


class LegacyRouting(ApiSchema):
    config = fields.Nested(LegacyConfig, required=True)
    published_at = fields.DateTime(required=True, allow_none=True)
    published_hash = fields.String(required=True, allow_none=True)
    publish_status = fields.String(required=True, validate=validate.OneOf(PUBLISH_STATUSES))
    publish_error = fields.String(required=True, allow_none=True)
