"""Ranked items of an answer: the entries of numbered and bulleted lists and the rows of markdown
tables, each with its rank (1 for the first item of its list or the first data row of its table)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ITEM = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|[-*+•])[ \t]+\S")
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
# An item goes on over indented lines; a blank line between two items keeps them in one list.
_CONTINUATION = re.compile(r"^[ \t]+\S")


@dataclass(frozen=True)
class Item:
    start: int
    end: int
    rank: int


def _lines(text: str) -> list[tuple[int, str]]:
    lines: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        lines.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    return lines


def ranked_items(text: str) -> list[Item]:
    """Every list item and table data row of `text`, in order, with its rank in its list or table."""
    items: list[Item] = []
    rank = 0  # the rank of the last item of the list being read; 0 outside a list
    kind = ""  # "list" or "table" while inside one
    for offset, line in _lines(text):
        end = offset + len(line)
        if _ITEM.match(line) and kind != "table":
            rank = rank + 1 if kind == "list" else 1
            kind = "list"
            items.append(Item(offset, end, rank))
        elif _TABLE_ROW.match(line) or (kind == "table" and _TABLE_RULE.match(line)):
            if _TABLE_RULE.match(line):
                continue
            if kind != "table":  # a table's first row is its header
                kind, rank = "table", 0
                continue
            rank += 1
            items.append(Item(offset, end, rank))
        elif kind == "list" and (not line.strip() or _CONTINUATION.match(line)):
            if line.strip() and items:
                last = items[-1]
                items[-1] = Item(last.start, end, last.rank)
        else:
            kind, rank = "", 0
    return items


def rank_at(items: list[Item], offset: int) -> int | None:
    """The rank of the item holding `offset`, or None outside every list and table."""
    for item in items:
        if item.start <= offset < item.end:
            return item.rank
    return None
