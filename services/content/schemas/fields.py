"""Field builders and limits shared by the content service's schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from libs.contract.internal_bodies import DOCUMENT_STATUSES
from libs.contract.validators import FullMatch, StrictString, UuidString, length, route_path_validators

STATUSES = DOCUMENT_STATUSES
TITLE_MAX = 500
TEXT_MAX = 10_000
URL_MAX = 2048
DOMAIN_IDS_MAX = 50
# An absolute http(s) URL; empty clears the field. Spaces and control characters are spelt out
# rather than written \s, which means different sets in Python and in JSON Schema (ECMA) regexes.
URL_PATTERN = r"^(?:https?://[^\u0000-\u0020\u007f/?#]+[^\u0000-\u0020\u007f]*)?$"
# Where a page redirects: an absolute http(s) URL or a path on the same site; empty clears it.
REDIRECT_PATTERN = r"^(?:https?://[^\u0000-\u0020\u007f/?#]+[^\u0000-\u0020\u007f]*|/[^\u0000-\u0020\u007f]*)?$"


def matching(pattern: str, message: str, maximum: int, minimum: int = 0, **kwargs: Any) -> StrictString:
    """A string matched whole against `pattern` (the OpenAPI document shows the pattern too)."""
    return StrictString(validate=[length(minimum, maximum), FullMatch(pattern, message)], **kwargs)


def url_field() -> StrictString:
    return matching(URL_PATTERN, "Must be an absolute http(s) URL.", URL_MAX)


def redirect_field() -> StrictString:
    return matching(REDIRECT_PATTERN, "Must be an absolute http(s) URL or a path.", URL_MAX)


def text_field(maximum: int = TEXT_MAX) -> StrictString:
    return StrictString(validate=length(0, maximum))


def title_field(**kwargs: Any) -> StrictString:
    return StrictString(validate=length(1, TITLE_MAX), **kwargs)


def status_field(**kwargs: Any) -> StrictString:
    return StrictString(validate=validate.OneOf(STATUSES), **kwargs)


def domain_ids_field() -> fields.List[str]:
    return fields.List(UuidString(), validate=length(0, DOMAIN_IDS_MAX))


def file_path_field() -> StrictString:
    return StrictString(validate=route_path_validators())


def nullable_string() -> fields.String:
    return fields.String(required=True, allow_none=True)


def status_out(**kwargs: Any) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(STATUSES), **kwargs)
