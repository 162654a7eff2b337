"""Slugs derived from names, and paths suggested from document file paths."""

from __future__ import annotations

import pytest

from services.apps.candidates import suggest_path
from services.apps.slugs import derive_slug


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Docs", "docs"),
        ("Docs & Guides", "docs-guides"),
        ("--Docs--", "docs"),
        ("Crème Brûlée", "creme-brulee"),
        ("v2.0 Release", "v2-0-release"),
        ("\u212a", "k"),
        ("日本語", "app"),
        ("!!!", "app"),
        ("", "app"),
    ],
)
def test_derive_slug(name: str, slug: str):
    assert derive_slug(name) == slug


@pytest.mark.parametrize(
    ("file_path", "path"),
    [
        ("guides/intro", "/guides/intro"),
        ("/guides//intro/", "/guides/intro"),
        ("a b/c?d#e", "/a%20b/c%3Fd%23e"),
        ("tab\there", "/tab%09here"),
        ("wide\u3000space", "/wide%E3%80%80space"),
        (None, "/"),
    ],
)
def test_suggest_path(file_path: str | None, path: str):
    assert suggest_path(file_path) == path
