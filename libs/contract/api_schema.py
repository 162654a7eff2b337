"""The base of every schema of the API and of the internal contracts: snake_case in Python,
camelCase in JSON, and no key the schema does not declare."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, fields

_CAMEL_BOUNDARY = re.compile(r"_([a-z0-9])")


def camel_case(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


class ApiSchema(Schema):
    """A schema whose Python attributes are snake_case and whose JSON keys are camelCase."""

    class Meta:
        unknown = RAISE

    def on_bind_field(self, field_name: str, field_obj: fields.Field[Any]) -> None:
        field_obj.data_key = camel_case(field_obj.data_key or field_name)
