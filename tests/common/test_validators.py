"""The shared field rules, against the inputs that break naive ones."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError, fields

from libs.contract.api_schema import ApiSchema
from libs.contract.validators import (
    HOSTNAME_PATTERN,
    FullMatch,
    QueryBoolean,
    StrictBoolean,
    StrictNumber,
    UuidList,
    UuidString,
    hostname_validators,
    normalize_hostname,
    normalize_route_path,
    priority_field,
    route_path_validators,
    slug_validators,
)


class Sample(ApiSchema):
    slug = fields.String(validate=slug_validators())
    hostname = fields.String(validate=hostname_validators())
    path = fields.String(validate=route_path_validators())
    priority = priority_field()
    number = StrictNumber()
    flag = StrictBoolean()
    query_flag = QueryBoolean()
    ref = UuidString()
    refs = UuidList()


def errors_of(**data) -> dict:
    try:
        Sample().load(data)
    except ValidationError as exc:
        return exc.messages
    return {}


@pytest.mark.parametrize("slug", ["a", "my-app", "a1-b2-c3", "x" * 120])
def test_valid_slugs(slug):
    assert errors_of(slug=slug) == {}


@pytest.mark.parametrize("slug", ["", "My-App", "-app", "app-", "a--b", "app\n", "ap p", "ápp", "x" * 121])
def test_invalid_slugs(slug):
    assert "slug" in errors_of(slug=slug)


LABEL_63 = "a" * 63
LABEL_64 = "a" * 64
HOSTNAME_253 = ".".join([LABEL_63] * 3) + "." + "a" * 58 + ".io"
HOSTNAME_254 = ".".join([LABEL_63] * 3) + "." + "a" * 59 + ".io"  # every label valid: only too long


@pytest.mark.parametrize(
    "hostname",
    ["example.com", "a.b.example.co", "xn--bcher-kva.example", f"{LABEL_63}.com", "a-b.example.com", HOSTNAME_253],
)
def test_valid_hostnames(hostname):
    assert errors_of(hostname=hostname) == {}


@pytest.mark.parametrize(
    "hostname",
    [
        "",
        "localhost",
        "example.com.",
        "Example.com",
        "-bad.com",
        "bad-.com",
        f"{LABEL_64}.com",
        "exa mple.com",
        "bücher.de",
        "example.c",
        "example.com\n",
        "a..com",
        "1.2.3.4",
        HOSTNAME_254,
    ],
)
def test_invalid_hostnames(hostname):
    assert "hostname" in errors_of(hostname=hostname)


def test_hostname_length_limit_is_253():
    assert (len(HOSTNAME_253), len(HOSTNAME_254)) == (253, 254)
    assert errors_of(hostname=HOSTNAME_253) == {}
    assert errors_of(hostname=HOSTNAME_254) == {"hostname": ["Length must be between 1 and 253."]}


def test_normalising_a_hostname_lowercases_ascii_only():
    assert normalize_hostname("Example.COM") == "example.com"
    kelvin = "\u212aelvin.com"  # KELVIN SIGN, which str.lower() would turn into an ASCII "k"
    assert normalize_hostname(kelvin) == kelvin
    assert FullMatch(HOSTNAME_PATTERN).regex.fullmatch(normalize_hostname(kelvin)) is None


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("docs", "/docs"),
        ("/docs/", "/docs"),
        ("//docs//intro///", "/docs/intro"),
        ("/", "/"),
        ("", "/"),
        ("/a/b", "/a/b"),
    ],
)
def test_route_paths_have_one_canonical_form(raw, normal):
    assert normalize_route_path(raw) == normal


@pytest.mark.parametrize("path", ["/a?b=1", "/a#top", "/a b", "/a\tb", "x" * 2049, ""])
def test_invalid_route_paths(path):
    assert "path" in errors_of(path=path)


@pytest.mark.parametrize("value", [0, 1, 50.5, 100, 100.0])
def test_priority_accepts_numbers_from_0_to_100(value):
    assert errors_of(priority=value) == {}


@pytest.mark.parametrize("value", [-1, 100.5, 101, "50", True, None, float("nan")])
def test_priority_refuses_anything_else(value):
    assert "priority" in errors_of(priority=value)


@pytest.mark.parametrize(("field", "value"), [("number", "1"), ("number", False), ("flag", 1), ("flag", "true")])
def test_json_types_are_strict(field, value):
    assert field in errors_of(**{field: value})


@pytest.mark.parametrize(("raw", "parsed"), [("true", True), ("false", False), ("1", True), ("0", False)])
def test_query_booleans(raw, parsed):
    assert Sample().load({"queryFlag": raw}) == {"query_flag": parsed}


def test_query_booleans_refuse_other_words():
    assert "queryFlag" in errors_of(queryFlag="yes")


def test_uuids_are_canonical_and_lowercased():
    assert Sample().load({"ref": "0E8F3C7A-5B7D-4A7C-9F5E-1B2C3D4E5F60"}) == {
        "ref": "0e8f3c7a-5b7d-4a7c-9f5e-1b2c3d4e5f60"
    }
    for bad in ("0e8f3c7a5b7d4a7c9f5e1b2c3d4e5f60", "{0e8f3c7a-5b7d-4a7c-9f5e-1b2c3d4e5f60}", "x"):
        assert "ref" in errors_of(ref=bad)


@pytest.mark.parametrize(
    ("hostname", "message"),
    [
        ("Docs.Example.COM", "Must be lowercase: use docs.example.com."),
        ("Not A Host", "Must be a lowercase hostname such as example.com."),
        ("\u212aelvin.com", "Must be a lowercase hostname such as example.com."),
    ],
)
def test_a_hostname_is_checked_as_sent_and_upper_case_names_the_lowercase_form(hostname, message):
    assert errors_of(hostname=hostname) == {"hostname": [message]}


def test_a_list_of_uuids_is_checked_item_by_item_and_lower_cased():
    upper = "0D8E6AC7-3F4F-4F7B-9D8E-2C1C8A0B8F10"
    assert Sample().load({"refs": [upper, upper.lower()]}) == {"refs": [upper.lower()] * 2}
    assert errors_of(refs=[upper, "nope"]) == {"refs": {1: ["Not a valid UUID."]}}
    assert errors_of(refs=[upper, 7]) == {"refs": {1: ["Not a valid UUID."]}}
    assert errors_of(refs=upper) == {"refs": ["Not a list."]}
