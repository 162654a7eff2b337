"""The shapes of the apps service's answers, as the OpenAPI document declares them."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import AppRouteTarget, Ref, Timestamps
from libs.contract.api_schema import ApiSchema
from services.apps.schemas.values import (
    ACTIONS,
    DOMAIN_SCOPES,
    DOMAIN_TYPES,
    ISSUES,
    LEGACY_MODES,
    PATH_STATUSES,
    PUBLISH_STATUSES,
    RELEASE_REASONS,
    RESOURCE_TYPES,
    TARGET_TYPES,
    VERIFICATION_ERRORS,
)


class AppProductRef(Ref):
    """A product an app's resource names."""


class App(Timestamps):
    id = fields.String(required=True)
    organization_id = fields.String(required=True)
    name = fields.String(required=True)
    slug = fields.String(required=True)
    metadata = fields.Raw(required=True, allow_none=True)


class DeletedApp(App):
    restorable_until = fields.DateTime(
        required=True,
        metadata={"description": "Until when it can be restored (ISO 8601, UTC); the purge removes it after that."},
    )


class DeletedAppList(ApiSchema):
    items = fields.List(fields.Nested(DeletedApp), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


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


class DnsRecord(ApiSchema):
    type = fields.String(required=True, validate=validate.OneOf(("TXT",)))
    name = fields.String(required=True, metadata={"description": "`_aivis-challenge.<domain>`"})
    value = fields.String(required=True)


class VerificationError(ApiSchema):
    code = fields.String(required=True, validate=validate.OneOf(VERIFICATION_ERRORS))
    message = fields.String(required=True)


class AppDomain(Timestamps):
    id = fields.String(required=True)
    domain = fields.String(required=True)
    scope = fields.String(required=True, validate=validate.OneOf(DOMAIN_SCOPES))
    product_id = fields.String(required=True, allow_none=True)
    app_id = fields.String(required=True, allow_none=True)
    provider_id = fields.String(required=True)
    type = fields.String(required=True, validate=validate.OneOf(DOMAIN_TYPES))
    origin = fields.String(required=True, allow_none=True)
    # Beyond the contract: proving the hostname (docs/architecture.md, "Domain ownership").
    verified = fields.Boolean(required=True, metadata={"description": "Whether the TXT record was found."})
    verified_at = fields.DateTime(required=True, allow_none=True)
    verification = fields.List(
        fields.Nested(DnsRecord),
        required=True,
        metadata={"description": "The DNS record that proves the hostname; then `POST .../verify`."},
    )
    verification_checked_at = fields.DateTime(required=True, allow_none=True)
    verification_error = fields.Nested(
        VerificationError,
        required=True,
        allow_none=True,
        metadata={"description": "Why the last check failed; null once one succeeds or before any."},
    )
    expires_at = fields.DateTime(
        required=True,
        allow_none=True,
        metadata={"description": "When an unverified claim lapses and the hostname is released; null once verified."},
    )
    released_at = fields.DateTime(
        required=True,
        allow_none=True,
        metadata={"description": "When the claim ended: it lapsed, or another organization proved the hostname."},
    )
    release_reason = fields.String(required=True, allow_none=True, validate=validate.OneOf(RELEASE_REASONS))
    record_checked_at = fields.DateTime(
        required=True,
        allow_none=True,
        metadata={"description": "When the TXT record of the verified domain was last looked up again; null before."},
    )
    record_missing_since = fields.DateTime(
        required=True,
        allow_none=True,
        metadata={
            "description": "Since when the verified domain's TXT record has been found missing; null while it is"
            " found. After the grace period another organization that proves the hostname takes it over."
        },
    )


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


class StoredRoute(ApiSchema):
    """A route as stored: what its webhook events carry (answers add its target and product)."""

    id = fields.String(required=True)
    app_id = fields.String(required=True)
    path = fields.String(required=True)
    target_type = fields.String(required=True, validate=validate.OneOf(TARGET_TYPES))
    target_id = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    deleted_at = fields.DateTime(
        required=True, allow_none=True, metadata={"description": "Beyond the contract: when the route was deleted."}
    )


class AppRoute(StoredRoute):
    # None when the document has been deleted since the route was made.
    target = fields.Nested(AppRouteTarget, required=True, allow_none=True)
    product = fields.Nested(AppProductRef, required=True, allow_none=True)


class RouteList(ApiSchema):
    """Beyond the contract: a page of an app's routes."""

    routes = fields.List(fields.Nested(AppRoute), required=True, metadata={"description": "Oldest first."})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "The `cursor` of the next page; null on the last."}
    )


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
