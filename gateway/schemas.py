"""Shapes of the gateway's own public routes (documentation of what gateway/views.py answers)."""

from __future__ import annotations

from marshmallow import fields

from libs.common.schemas import ApiSchema


class Product(ApiSchema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    slug = fields.String(required=True)
