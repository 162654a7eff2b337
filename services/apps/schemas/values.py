"""The limits and value sets of the apps service's requests and answers."""

from __future__ import annotations

from libs.contract.internal_bodies import LOOKUP_MAX

NAME_MAX = 120
ORIGIN_MAX = 2048
MAX_IMPORT_ROUTES = 100
# Pages of route candidates, beyond the contract (docs/architecture.md, "Apps service").
CANDIDATES_PAGE_DEFAULT, CANDIDATES_PAGE_MAX = 100, 1000
# Pages of an app's routes: at most what one lookup of their targets takes.
ROUTES_PAGE_DEFAULT, ROUTES_PAGE_MAX = 100, LOOKUP_MAX
DELETED_PAGE_DEFAULT, DELETED_PAGE_MAX = 50, 200

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
RELEASE_REASONS = ("expired", "claimed")
VERIFICATION_ERRORS = ("NO_RECORD", "WRONG_VALUE", "DNS_TIMEOUT", "DNS_ERROR")
