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
