"""The one canonical form of a route path, and the rules a given path must meet."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from libs.contract.validators import normalize_route_path, rfc3986_route_path, route_path_validators


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("", "/"),
        ("/", "/"),
        ("//", "/"),
        ("docs", "/docs"),
        ("/docs/", "/docs"),
        ("docs//intro///", "/docs/intro"),
        ("/docs/./intro", "/docs/intro"),
        ("/docs/../intro", "/intro"),
        ("/../../etc", "/etc"),
        ("/a/b/..", "/a"),
        ("/a/.../b", "/a/.../b"),
        ("/a/..b/c.", "/a/..b/c."),
        ("/Docs/Intro", "/Docs/Intro"),
        ("/%2e%2e/x", "/x"),
        ("/a/%2E/b", "/a/b"),
        ("/café", "/café"),
        ("/cafe\u0301", "/café"),
        ("/caf%C3%A9", "/café"),
        ("/caf%c3%a9", "/café"),
        ("/cafe%CC%81", "/café"),
        ("/%7Euser/%41", "/~user/A"),
        ("/a%2fb", "/a%2Fb"),
        ("/a%20b", "/a%20b"),
        ("/a%e3%80%80b", "/a%E3%80%80b"),
        ("/a%C3", "/a%C3"),
        ("/100%25", "/100%25"),
        ("/50%", "/50%"),
    ],
)
def test_normalize_route_path(given: str, canonical: str):
    assert normalize_route_path(given) == canonical


def test_normalizing_twice_changes_nothing():
    for path in ("a//b/", "/x/./y/../z", "", "/", "/caf%c3%a9", "/cafe\u0301/%2f%252e", "/a%C3%"):
        once = normalize_route_path(path)
        assert normalize_route_path(once) == once


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("", "/"),
        ("docs", "/docs"),
        ("/docs/", "/docs/"),
        ("docs//intro///", "/docs//intro///"),
        ("/docs/./intro", "/docs/intro"),
        ("/docs/../intro", "/intro"),
        ("/a/b/..", "/a/"),
        ("/a/b/.", "/a/b/"),
        ("/../../etc", "/etc"),
        ("/%2e%2e/x", "/x"),
        ("/caf%C3%A9/x", "/caf%C3%A9/x"),
        ("/caf%c3%a9", "/caf%C3%A9"),
        ("/café", "/café"),
        ("/cafe\u0301", "/cafe\u0301"),
        ("/%7Euser/%41", "/~user/A"),
        ("/a%2fb", "/a%2Fb"),
        ("/a%20b", "/a%20b"),
        ("/50%", "/50%"),
        ("/Docs/Intro", "/Docs/Intro"),
    ],
)
def test_a_route_keeps_the_path_as_sent_up_to_rfc_3986_normalisation(given: str, kept: str):
    assert rfc3986_route_path(given) == kept


@pytest.mark.parametrize(
    "path", ["docs//intro///", "/caf%c3%a9", "/cafe\u0301/%2f%252e", "/a%C3%41", "/%2e%2e/a/./b/..", "/50%", ""]
)
def test_the_kept_path_has_the_key_of_the_path_sent(path: str):
    kept = rfc3986_route_path(path)
    assert normalize_route_path(kept) == normalize_route_path(path)
    assert rfc3986_route_path(kept) == kept


def check(path: str) -> None:
    for validator in route_path_validators():
        validator(path)


@pytest.mark.parametrize(
    "path", ["/", "a", "/" + "a" * 2047, "a" * 2047, "/ü", "/%20", "/a\x1cb", "/a\x85b"]
)  # the last two are whitespace to Python's \s, not to JSON Schema's: the published pattern accepts them
def test_paths_within_the_rules_pass(path: str):
    check(path)


@pytest.mark.parametrize(
    "path",
    ["", "/" + "a" * 2048, "a" * 2048, "/?", "/#", "/ ", "/\n", "/\t", "/a\u00a0b", "/a\u3000b", "/a\ufeffb", "/\x00"],
)
def test_paths_outside_the_rules_fail(path: str):
    with pytest.raises(ValidationError):
        check(path)
