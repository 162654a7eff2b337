"""The personas service's resources as answers and webhook payloads show them, declared once by
their response schemas (libs/common/shapes.py). Answers leave the database as JSON text built by
PostgreSQL from these shapes: one timestamp format for a row whether it was just written or
listed, and cheaper than building dicts and encoding them again. A tracked prompt is the
exception: other parts read it as a dict (analytics plans its runs from it), so it is `PROMPT.of`
of a row read with `PROMPT.columns`."""

from __future__ import annotations

from libs.common.shapes import Shape, as_text
from services.personas import schemas, tracking_schemas

PERSONA_JSON = Shape(schemas.Persona).json_sql()
TOPIC_JSON = Shape(schemas.Topic).json_sql()
SUGGESTION_JSON = Shape(schemas.Suggestion).json_sql()
PROMPT = Shape(
    tracking_schemas.Prompt,
    computed={
        **{name: as_text(name) for name in ("id", "organization_id", "product_id")},
        **{name: as_text(name, nullable=True) for name in ("topic_id", "persona_id", "suggestion_id")},
    },
    extra_columns=("id", "organization_id", "product_id", "topic_id", "persona_id", "suggestion_id"),
)
# A competitor's answer also carries the product's competitor-set version, read apart (one per
# product, not a column of the row): `{**COMPETITOR.of(row), "competitorSetVersion": version}`.
COMPETITOR = Shape(
    tracking_schemas.Competitor,
    computed={name: as_text(name) for name in ("id", "organization_id", "product_id")},
    omit=("competitor_set_version",),
    extra_columns=("id", "organization_id", "product_id"),
)
