"""Field types and validators shared by every part: one definition of each rule of the spec.

JSON bodies are typed strictly: a number given as a string ("50") or a boolean given as a
number is refused rather than coerced, because a client sending the wrong type has a bug
we should report, not hide.
"""

from __future__ import annotations

import datetime as dt
import re
import string
import unicodedata
from collections.abc import Callable
from typing import Any

from marshmallow import ValidationError, fields, validate

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
HOSTNAME_PATTERN = r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$"
NO_NUL_PATTERN = r"^[^\u0000]*$"
# The characters a route path may not hold: the spec's `[^?#\s]`, with `\s` spelled out as JSON
# Schema (ECMAScript) reads it, since Python's `\s` differs (it has \x1c-\x1f and \x85, lacks
# \ufeff) and the check must accept what the published pattern accepts; and NUL, which
# PostgreSQL cannot store.
NOT_IN_ROUTE_PATH = r"?#\u0000\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
ROUTE_PATH_PATTERN = rf"^\/?[^{NOT_IN_ROUTE_PATH}]*$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

# The OpenAPI component describing a free-form JSON object as the services take it: each value is
# any JSON value (the contract's words), and no string or key holds a NUL (`load_data` refuses one
# anywhere: PostgreSQL cannot store it). The description is not recursive, which client
# generators cannot follow; deeper levels are left open. The gateway adds it to its document;
# `json_object_field` refers to it.
ANY_JSON_VALUE: dict[str, Any] = {
    "description": "Any JSON value.",
    "anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "number"},
        {"type": "string", "pattern": NO_NUL_PATTERN},
        {"type": "array", "items": {}},
        {"type": "object", "additionalProperties": {}},
    ],
}
JSON_SCHEMA_COMPONENTS: dict[str, dict[str, Any]] = {
    "JsonObject": {
        "type": "object",
        "description": "A JSON object; each value is any JSON value.",
        "propertyNames": {"pattern": NO_NUL_PATTERN},
        "additionalProperties": ANY_JSON_VALUE,
    },
}

SLUG_MAX = 120
HOSTNAME_MAX = 253
ROUTE_PATH_MAX = 2048
PRIORITY_MIN, PRIORITY_MAX = 0, 100

_UUID = re.compile(UUID_PATTERN)


def is_uuid(value: str) -> bool:
    """A UUID in its canonical 8-4-4-4-12 form, any case: the one id check of every part."""
    return _UUID.fullmatch(value) is not None


_ASCII_UPPER_TO_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class FullMatch(validate.Validator):
    """A regular-expression check on the whole value.

    marshmallow's Regexp uses `re.match`, and `$` there also matches before a trailing newline,
    so "slug\\n" would pass `^[a-z]+$`. `fullmatch` has no such hole.
    """

    def __init__(self, pattern: str, error: str | None = None) -> None:
        self.pattern = pattern
        self.regex = re.compile(pattern)
        self.error: str = error or f"Does not match the pattern {pattern}."

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self.error)
        return value

    def _repr_args(self) -> str:
        return f"pattern={self.pattern!r}"


def length(minimum: int | None = None, maximum: int | None = None) -> validate.Length:
    return validate.Length(min=minimum, max=maximum)


def slug_validators() -> list[validate.Validator]:
    return [length(1, SLUG_MAX), FullMatch(SLUG_PATTERN, "Must be lowercase letters, digits and single hyphens.")]


class HostnameMatch(FullMatch):
    """The spec's hostname pattern on the value as sent; a name that only lacks lowercase says so.

    Hostnames are case-insensitive, but the contract's pattern is lowercase only: "Shop.Example.com"
    is refused rather than quietly stored as another spelling, and the message names the one to send.
    """

    def __init__(self) -> None:
        super().__init__(HOSTNAME_PATTERN, "Must be a lowercase hostname such as example.com.")

    def __call__(self, value: str) -> str:
        lowered = normalize_hostname(value)
        if lowered != value and self.regex.fullmatch(lowered) is not None:
            raise ValidationError(f"Must be lowercase: use {lowered}.")
        return super().__call__(value)


def hostname_validators() -> list[validate.Validator]:
    return [length(1, HOSTNAME_MAX), HostnameMatch()]


def _canonical_path_within_limit(value: str) -> None:
    # "a" * 2048 and the like grow by the leading slash; NFC may lengthen a few characters.
    if max(len(rfc3986_route_path(value)), len(normalize_route_path(value))) > ROUTE_PATH_MAX:
        raise ValidationError(f"Longer than {ROUTE_PATH_MAX} characters once the leading slash is added.")


def route_path_validators() -> list[validate.Validator | Callable[[str], None]]:
    """The spec's length and pattern on the path as given, and the length of its canonical form."""
    return [
        length(1, ROUTE_PATH_MAX),
        FullMatch(ROUTE_PATH_PATTERN, "Must be a URL path without query or fragment."),
        _canonical_path_within_limit,
    ]


def normalize_hostname(value: str) -> str:
    """Lower-case ASCII letters only: `str.lower` maps e.g. the Kelvin sign to "k", which would
    let a look-alike unicode name pass the ASCII-only hostname pattern after normalisation."""
    return value.translate(_ASCII_UPPER_TO_LOWER)


def normalize_route_path(path: str) -> str:
    """The one canonical form of a route path, so two paths that reach the same page can never
    be two routes.

    - Percent-encoding (RFC 3986, 6.2.2): `%XX` sequences spelling an unreserved ASCII character
      (letters, digits, `-._~`) or a non-ASCII character in UTF-8 are decoded ("/caf%C3%A9" is
      "/café"); any other stays encoded with upper-case digits ("%2f" is "%2F": an encoded slash
      is not a segment boundary; "%20" stays, a route path holds no space).
    - Unicode: NFC ("/cafe\u0301" is "/café").
    - Segments: a leading slash, no empty, trailing or dot segments; dot segments ("." and "..",
      also encoded as "%2e") are resolved as browsers resolve them before sending a request
      (RFC 3986, 5.2.4): "docs//intro/" and "/docs/./intro" become "/docs/intro",
      "/docs/../intro" becomes "/intro", "" and "/" become "/".
    """
    decoded = unicodedata.normalize("NFC", _PERCENT_RUN.sub(_decode_percent_run, path))
    segments: list[str] = []
    for segment in decoded.split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    return "/" + "/".join(segments)


def route_path_prefix(prefix: str) -> str:
    """A path prefix in the canonical form of route paths, to compare with their keys: as
    normalize_route_path, except that a trailing slash is kept ("/docs/" finds "/docs/a", never
    "/docs-old")."""
    key = normalize_route_path(prefix)
    return key + "/" if prefix.endswith("/") and key != "/" else key


def rfc3986_route_path(path: str) -> str:
    """A route path as the client sent it, normalised only as RFC 3986 (6.2.2) allows: a leading
    slash, upper-case percent-encoding digits, percent-encoded unreserved characters decoded
    ("%7E" is "~", "%c3%a9" is "%C3%A9"), dot segments removed (5.2.4: "/a/./b/../c/" is "/a/c/").
    Nothing else changes: empty segments, a trailing slash, the Unicode form and every other
    encoding stay the client's. Routes keep this form; `normalize_route_path` is their key."""
    decoded = _PERCENT.sub(_decode_if_unreserved, path if path.startswith("/") else "/" + path)
    output: list[str] = []
    segments = decoded.split("/")[1:]
    for index, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and output:
                output.pop()
            if index == len(segments) - 1:
                output.append("")  # "/a/b/.." is "/a/": the last segment stays a directory
        else:
            output.append(segment)
    return "/" + "/".join(output)


_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def _decode_if_unreserved(match: re.Match[str]) -> str:
    character = chr(int(match.group()[1:], 16))
    return character if character in _UNRESERVED else match.group().upper()


_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_NOT_IN_ROUTE_PATH = re.compile(f"[{NOT_IN_ROUTE_PATH}]")


def _decode_percent_run(match: re.Match[str]) -> str:
    text = bytes.fromhex(match.group().replace("%", "")).decode("utf-8", errors="surrogateescape")
    return "".join(
        character
        if _decodes(character)
        else "".join(f"%{byte:02X}" for byte in character.encode("utf-8", "surrogateescape"))
        for character in text
    )


def _decodes(character: str) -> bool:
    """Whether a percent-encoded character is written plainly in the canonical form."""
    if character.isascii():
        return character in _UNRESERVED
    return not ("\udc80" <= character <= "\udcff") and not _NOT_IN_ROUTE_PATH.match(character)


class StrictString(fields.String):
    """A string that must be a JSON string.

    Without a pattern of its own, its OpenAPI schema states that it holds no NUL character,
    which `libs.common.schemas.load_data` refuses everywhere (PostgreSQL cannot store one).
    """

    def __init__(self, **kwargs: Any) -> None:
        checks = kwargs.get("validate")
        checks = checks if isinstance(checks, list | tuple) else [checks]
        if not any(isinstance(check, FullMatch) for check in checks):
            kwargs["metadata"] = {"pattern": NO_NUL_PATTERN, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)


def json_object_field(**kwargs: Any) -> fields.Dict:
    """A JSON object of any content (documented as the JsonObject component)."""
    return fields.Dict(metadata={"allOf": [{"$ref": "#/components/schemas/JsonObject"}]}, **kwargs)


class StrictNumber(fields.Float):
    """A JSON number: integers and finite floats; strings and booleans are refused."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        result: float = super()._deserialize(value, attr, data, **kwargs)
        return result


class JsonInteger(fields.Integer):
    """An integer as JSON Schema has it: a number without a fraction (48 and 48.0); strings,
    booleans and 48.5 are refused."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid")
        if isinstance(value, float) and not value.is_integer():
            raise self.make_error("invalid")
        return int(value)


class StrictBoolean(fields.Boolean):
    """A JSON `true` or `false`; 1, "yes" and "true" are refused."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class QueryBoolean(fields.Boolean):
    """A boolean in a query string: `true` or `false` (also `1` / `0`)."""

    truthy = {"true", "1"}
    falsy = {"false", "0"}


class UuidString(fields.String):
    """A UUID in its canonical 8-4-4-4-12 form, returned lower-cased as a string."""

    default_error_messages = {"invalid_uuid": "Not a valid UUID."}

    def __init__(self, **kwargs: Any) -> None:
        kwargs["metadata"] = {"format": "uuid", **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if not is_uuid(text):
            raise self.make_error("invalid_uuid")
        return text.lower()


class UuidList(fields.Field[list[str]]):
    """A JSON array of UUIDs, each checked as UuidString checks one, returned lower-cased.

    For the long lists parts send each other (an app's routed documents: tens of thousands of
    ids): one pass over the list, where a List of UuidString costs about 2 µs an item in
    marshmallow's per-item machinery (20 ms for 10,000 ids).
    """

    default_error_messages = {"invalid": "Not a list.", "invalid_uuid": "Not a valid UUID."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str]:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        for index, item in enumerate(value):
            if not isinstance(item, str) or not is_uuid(item):
                raise ValidationError({index: [self.error_messages["invalid_uuid"]]})
        return [item.lower() for item in value]


def priority_field(**kwargs: Any) -> StrictNumber:
    """The content priority: a number from 0 to 100 inclusive."""
    return StrictNumber(validate=validate.Range(min=PRIORITY_MIN, max=PRIORITY_MAX), **kwargs)


class UtcDateTime(fields.AwareDateTime):
    """An ISO 8601 time with a zone, loaded as the same moment in UTC: PostgreSQL refuses offsets
    Python takes (past ±15:59), and a moment that leaves the calendar in UTC is refused here."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dt.datetime:
        moment = super()._deserialize(value, attr, data, **kwargs)
        try:
            return moment.astimezone(dt.UTC)
        except OverflowError:
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE) from None
