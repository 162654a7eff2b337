"""Text compared as people read it: NFKC-normalised and case-folded, with every character of the
compared text mapped back to its offsets in the original, so a match reports where it stands.

Whitespace is kept as it is (a name's words match across any run of it), so an ASCII text folds to
its lower case with the same offsets, the common case, and costs no mapping at all.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Joins spellings of a name that differ only in their spaces ("Acme  Cloud", "Acme\nCloud").
_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """A name in the form matches are made on: NFKC, case-folded, spaces collapsed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@dataclass(frozen=True)
class Folded:
    """`text` folded, and for each of its characters the original span [start, end) it came from;
    no spans when the text is its original's lower case, offset for offset."""

    text: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of the folded slice [start, end)."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]

    def origin(self, index: int) -> int:
        """The original offset of the folded character at `index`."""
        return index if self.starts is None else self.starts[index]


def _clusters(text: str) -> list[tuple[int, int]]:
    """Spans of a base character with the combining marks after it: NFKC composes within one."""
    spans: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or not unicodedata.combining(text[index]):
            spans.append((start, index))
            start = index
    return spans if text else []


def fold_with_offsets(text: str) -> Folded:
    """Fold `text` cluster by cluster, keeping where each folded character came from."""
    if text.isascii():
        return Folded(text.lower())
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for start, end in _clusters(text):
        piece = unicodedata.normalize("NFKC", text[start:end]).casefold()
        chars.append(piece)
        starts += [start] * len(piece)
        ends += [end] * len(piece)
    return Folded("".join(chars), tuple(starts), tuple(ends))
