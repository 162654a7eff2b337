"""Response parts that several content operations share."""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from libs.common.schemas import Ref
from libs.contract.api_schema import ApiSchema


class Scope(ApiSchema):
    product = fields.Nested(Ref, required=True)
    organization = fields.Nested(Ref, required=True)


class DomainEntry(ApiSchema):
    id = fields.String(required=True)
    domain = fields.String(required=True)
    is_canonical = fields.Boolean(required=True)


def domain_entries() -> fields.List[Any]:
    return fields.List(fields.Nested(DomainEntry), required=True)
