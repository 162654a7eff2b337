"""Request and response shapes of the apps service."""

from __future__ import annotations

from marshmallow import fields, validate

from libs.common.schemas import ApiSchema
from libs.common.validators import UuidString

MAX_RESOLVE_IDS = 500


class DomainResolve(ApiSchema):
    ids = fields.List(UuidString(), required=True, validate=validate.Length(min=1, max=MAX_RESOLVE_IDS))
