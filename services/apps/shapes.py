"""The apps service's resources as answers and webhook payloads show them, each declared once by
its response schema (libs/common/shapes.py): `SHAPE.columns` to read a row, `SHAPE.of(row)` for
the answer and the event's `data`."""

from __future__ import annotations

from libs.common.shapes import Shape, as_text
from services.apps.schemas import responses
from services.apps.verification import challenge

APP = Shape(responses.App)
CONFIG = Shape(responses.AppConfig)
RESOURCE = Shape(responses.AppResource)
DOMAIN = Shape(
    responses.AppDomain,
    expressions={"verified": "verified_at IS NOT NULL"},
    computed={"verification": lambda row: [challenge(row["domain"], row["verification_token"])]},
    # Read for the rules of claims (whose the hostname is) and for the challenge.
    extra_columns=("organization_id", "verification_token"),
)
# A route as stored (what its events carry; answers attach its target and product). Ids as text:
# they are compared with ids from other services. `path_key` is read for matching paths, never shown.
ROUTE = Shape(
    responses.StoredRoute,
    computed={name: as_text(name) for name in ("id", "app_id", "target_id")},
    extra_columns=("id", "app_id", "target_id", "path_key"),
)
# A domain's legacy routing config (deprecated). The config is stored as JSON in its API shape,
# made by `LEGACY_CONFIG` from the operator's input (a path's row names its `app_id`);
# `find_legacy_routing` leaves out the paths to apps that are not live before it is shown.
LEGACY_DESTINATION = Shape(responses.LegacyDestination)
LEGACY_PATH = Shape(
    responses.LegacyPath,
    computed={"destination": lambda row: LEGACY_DESTINATION.of({"type": "app", "app_id": row["app_id"]})},
)
LEGACY_ORIGIN = Shape(responses.LegacyOrigin)
LEGACY_CONFIG = Shape(
    responses.LegacyConfig,
    computed={
        "fallback_origin": lambda row: LEGACY_ORIGIN.of({"url": row["fallback_origin"]}),
        "paths": lambda row: [LEGACY_PATH.of(path) for path in row["paths"]],
    },
)
LEGACY_ROUTING = Shape(responses.LegacyRouting)
