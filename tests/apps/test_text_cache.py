"""The apps service's cache of written agent texts: served only for the version it was made from."""

from __future__ import annotations

from datetime import UTC, datetime

from services.apps.text_cache import TextCache, Written

WRITTEN = Written(b"# App\n", "tag", datetime(2026, 11, 26, tzinfo=UTC))


def test_a_text_is_served_for_its_own_version_only():
    cache = TextCache()
    cache.put(("app", "llms.txt"), ("v", 1), WRITTEN)
    assert cache.get(("app", "llms.txt"), ("v", 1)) == WRITTEN
    assert cache.get(("app", "llms.txt"), ("v", 2)) is None
    assert cache.get(("app", "sitemap.xml"), ("v", 1)) is None


def test_a_text_older_than_the_limit_is_not_served():
    cache = TextCache(max_age=-1.0)  # every text is past it at once
    cache.put("key", "version", WRITTEN)
    assert cache.get("key", "version") is None


def test_the_least_recently_read_text_goes_first():
    cache = TextCache(max_entries=2)
    cache.put("a", 1, WRITTEN)
    cache.put("b", 1, WRITTEN)
    assert cache.get("a", 1) == WRITTEN
    cache.put("c", 1, WRITTEN)
    assert (cache.get("a", 1), cache.get("b", 1), cache.get("c", 1)) == (WRITTEN, None, WRITTEN)
