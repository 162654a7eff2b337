"""The fields naming a brand, the same for a product's own brand (the gateway) and a competitor (the
personas part): other names it goes by, and the domains it owns."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate

from libs.contract.validators import StrictString, hostname_validators, length

BRAND_NAME_MAX = 200
ALIASES_MAX = 20
DOMAINS_MAX = 50


def _distinct(values: list[str]) -> None:
    if len({value.casefold() for value in values}) != len(values):
        raise ValidationError("Must not hold the same value twice (compared case-insensitively).")


def brand_name_field(**kwargs: Any) -> StrictString:
    return StrictString(validate=length(1, BRAND_NAME_MAX), **kwargs)


def aliases_field(**kwargs: Any) -> fields.List[Any]:
    """Other names of the brand, as people write them ("Acme Cloud", "ACME Corp")."""
    return fields.List(brand_name_field(), validate=[validate.Length(max=ALIASES_MAX), _distinct], **kwargs)


def domains_field(**kwargs: Any) -> fields.List[Any]:
    """Hostnames the brand owns; a page on one of them, or on a name under it, is the brand's."""
    return fields.List(
        StrictString(validate=hostname_validators()), validate=[validate.Length(max=DOMAINS_MAX), _distinct], **kwargs
    )
