"""A newest-first keyset (libs/common/cursors.py, `NewestFirst`): the condition, the parameters and
the page every newest-first list of the product shares."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from libs.common.cursors import NewestFirst, PageCursor

KEYSET = NewestFirst("d.created_at", "d.id")
START = datetime(2026, 1, 1, tzinfo=UTC)
IDS = [f"00000000-0000-4000-8000-00000000000{n}" for n in range(5)]


def test_without_a_cursor_the_first_page_reads_one_more_row_than_it_shows():
    query = {"limit": 2}
    assert KEYSET.where(query) == []
    assert KEYSET.params(query) == {"after_at": None, "after_id": None, "limit": 3}
    assert KEYSET.order == "ORDER BY d.created_at DESC, d.id DESC LIMIT %(limit)s"


def test_a_page_ends_with_the_cursor_the_next_request_sends_back():
    rows = [{"created_at": START - timedelta(minutes=n), "id": IDS[n]} for n in range(3)]
    page, next_cursor = KEYSET.page(rows, {"limit": 2})
    assert page == rows[:2] and next_cursor is not None
    query = {"limit": 2, "cursor": PageCursor(datetime.fromisoformat).deserialize(next_cursor)}
    assert KEYSET.where(query) == ["(d.created_at, d.id) < (%(after_at)s, %(after_id)s)"]
    assert KEYSET.params(query) == {"after_at": rows[1]["created_at"], "after_id": IDS[1], "limit": 3}
    assert KEYSET.page(rows[2:], query) == (rows[2:], None)
