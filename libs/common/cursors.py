"""Keyset pagination's cursors: a page answers `nextCursor`, the position (a path, a time) and id
of its last item as base64url JSON; the next request sends it back and starts after that item."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from marshmallow import fields

from libs.common.encoding import dumps, loads
from libs.contract.validators import is_uuid

Item = TypeVar("Item")


def encode_cursor(position: str | datetime, item_id: str) -> str:
    """The cursor of the page after an item: its position (a time is written in ISO 8601) and id."""
    return base64.urlsafe_b64encode(dumps([position, item_id])).rstrip(b"=").decode()


class PageCursor(fields.String):
    """A `nextCursor` as a page of a list gave it, loaded as the (position, id) the next page starts
    after. `read` turns the position into what the list's query takes, refusing (ValueError) one
    the list never gives; anything else than a cursor of the list is 422."""

    default_error_messages = {"invalid_cursor": "Not a cursor of this list: send nextCursor as a page gave it."}

    def __init__(self, read: Callable[[str], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._read = read

    # A field loading a pair, not a string: marshmallow's String is typed by what it loads.
    def _deserialize(  # type: ignore[override]
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> tuple[Any, str]:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            decoded = loads(base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True))
            match decoded:
                case [str(position), str(item_id)] if "\x00" not in position and is_uuid(item_id):
                    return self._read(position), item_id.lower()
        except (ValueError, binascii.Error):
            pass
        raise self.make_error("invalid_cursor")


def page_of(
    found: Sequence[Item], limit: int, position: Callable[[Item], tuple[str | datetime, str]]
) -> tuple[list[Item], str | None]:
    """A page from up to `limit + 1` items read (one more than the page, to know whether another
    follows): the first `limit`, and the cursor of the page after them (None at the end)."""
    page = list(found[:limit])
    return page, encode_cursor(*position(page[-1])) if len(found) > limit else None


class NewestFirst:
    """A list's keyset, newest first: rows ordered by (`position`, `key`) descending, read after the
    query's `cursor` (a `PageCursor`'s pair) and `limit` (plus one, to know whether a page follows).

        where += NEWEST.where(query)
        sql = f"SELECT ... WHERE {' AND '.join(where)} {NEWEST.order}"
        rows = await fetch_all(cur, sql, {**params, **NEWEST.params(query)})
        page, next_cursor = NEWEST.page(rows, query)

    `position` and `key` are columns as the SQL names them (a table's alias allowed); rows carry them
    by their bare names."""

    def __init__(self, position: str = "created_at", key: str = "id") -> None:
        self._position, self._key = position, key
        self._position_name, self._key_name = position.rpartition(".")[2], key.rpartition(".")[2]
        self.order = f"ORDER BY {position} DESC, {key} DESC LIMIT %(limit)s"

    def where(self, query: Mapping[str, Any]) -> list[str]:
        """The condition that starts after the query's cursor; none without one."""
        return (
            [] if query.get("cursor") is None else [f"({self._position}, {self._key}) < (%(after_at)s, %(after_id)s)"]
        )

    @staticmethod
    def params(query: Mapping[str, Any]) -> dict[str, Any]:
        after = query.get("cursor")
        return {
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
        }

    def page(self, rows: Sequence[Item], query: Mapping[str, Any]) -> tuple[list[Item], str | None]:
        return page_of(rows, query["limit"], self._cursor_of)

    def _cursor_of(self, row: Any) -> tuple[str | datetime, str]:
        return row[self._position_name], str(row[self._key_name])
