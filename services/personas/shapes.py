"""The personas service's resources as answers and webhook payloads show them, declared once by
their response schemas (libs/common/shapes.py). Answers leave the database as JSON text built by
PostgreSQL from these shapes: one timestamp format for a row whether it was just written or
listed, and cheaper than building dicts and encoding them again."""

from __future__ import annotations

from libs.common.shapes import Shape
from services.personas import schemas

PERSONA_JSON = Shape(schemas.Persona).json_sql()
TOPIC_JSON = Shape(schemas.Topic).json_sql()
SUGGESTION_JSON = Shape(schemas.Suggestion).json_sql()
