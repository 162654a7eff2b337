"""Where an answer names each tracked brand: exact matches of a name or alias on word boundaries of
the folded text (NFKC, case-folded), then near spellings by edit distance (rapidfuzz).

A near spelling is taken only when it could be a misspelt proper name: a name of at least
`FUZZY_MIN_LENGTH` characters, the same first letter, written with a capital, not itself a name of
any tracked brand, and one slip away: a letter missing, doubled or added, or two neighbours swapped.
A letter replaced by another is not a slip on short names, where it makes other words (Notion:
motion, nation, lotion); names of `TWO_EDITS_FROM` characters or more take two edits of any kind.
The thresholds are held by tests/analytics/test_analysis_cases.py on the misses and false hits
they are meant to separate ("Notoin" is Notion, "motion" is not).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import DamerauLevenshtein, Indel

from services.analytics.analysis.text import Folded, fold, fold_with_offsets

FUZZY_MIN_LENGTH = 5
TWO_EDITS_FROM = 9
_TOKEN = re.compile(r"\w+", re.UNICODE)
_URL = re.compile(r"https?://[^\s<>()\[\]]+", re.IGNORECASE)


@dataclass(frozen=True)
class Tracked:
    """A brand the analysis looks for: the product's own (`kind` "brand") or a competitor."""

    key: str
    kind: str
    name: str
    aliases: tuple[str, ...] = ()

    def spellings(self) -> list[str]:
        """Its folded names, longest first, each once."""
        return sorted({fold(name) for name in (self.name, *self.aliases) if fold(name)}, key=len, reverse=True)


@dataclass(frozen=True)
class Match:
    key: str
    start: int
    end: int
    text: str
    fuzzy: bool


Hit = tuple[int, int, str]


@dataclass(frozen=True)
class Matcher:
    """A brand set compiled once: one pattern of every spelling (longest first, so the longest wins
    where two start together) and, for near spellings, the spellings by first letter."""

    pattern: re.Pattern[str]
    owner: dict[str, str]
    by_initial: dict[str, list[tuple[str, str, int]]]


@functools.lru_cache(maxsize=256)
def matcher(tracked: tuple[Tracked, ...]) -> Matcher:
    owner: dict[str, str] = {}
    for brand in tracked:
        for spelling in brand.spellings():
            owner.setdefault(spelling, brand.key)  # a spelling two brands share is the first's
    ordered = sorted(owner, key=len, reverse=True)
    alternatives = "|".join(r"\s+".join(re.escape(word) for word in spelling.split(" ")) for spelling in ordered)
    pattern = re.compile(r"(?<!\w)(?:" + alternatives + r")(?!\w)") if ordered else re.compile(r"(?!x)x")
    by_initial: dict[str, list[tuple[str, str, int]]] = {}
    for spelling, key in owner.items():
        allowed = _edits_allowed(spelling)
        if allowed:
            by_initial.setdefault(spelling[0], []).append((spelling, key, allowed))
    return Matcher(pattern, owner, by_initial)


def _exact(folded: Folded, found: Matcher) -> list[Hit]:
    return [
        (hit.start(), hit.end(), found.owner[" ".join(hit.group().split())])
        for hit in found.pattern.finditer(folded.text)
    ]


def _edits_allowed(spelling: str) -> int:
    return 0 if len(spelling) < FUZZY_MIN_LENGTH else 1 if len(spelling) < TWO_EDITS_FROM else 2


def _near(candidate: str, spelling: str, allowed: int) -> bool:
    if allowed > 1:
        return DamerauLevenshtein.distance(candidate, spelling, score_cutoff=allowed) <= allowed
    if len(candidate) != len(spelling):
        return Indel.distance(candidate, spelling, score_cutoff=1) <= 1
    return sorted(candidate) == sorted(spelling) and DamerauLevenshtein.distance(candidate, spelling) == 1


def _fuzzy(text: str, folded: Folded, found: Matcher) -> list[Hit]:
    """Near spellings: only words written with a capital and sharing a spelling's first letter are
    compared, each with the spellings of as many words as it starts."""
    tokens = [(token.start(), token.end()) for token in _TOKEN.finditer(folded.text)]
    hits: list[Hit] = []
    for index, (start, _) in enumerate(tokens):
        candidates = found.by_initial.get(folded.text[start])
        if not candidates or not text[folded.origin(start)].isupper():
            continue
        for spelling, key, allowed in candidates:
            width = spelling.count(" ") + 1
            if index + width > len(tokens):
                continue
            end = tokens[index + width - 1][1]
            candidate = " ".join(folded.text[start:end].split())
            if candidate in found.owner or abs(len(candidate) - len(spelling)) > allowed:
                continue
            if _near(candidate, spelling, allowed):
                hits.append((start, end, key))
    return hits


def _without_overlaps(found: Iterable[Hit], taken: list[tuple[int, int]]) -> list[Hit]:
    """The earliest match at each place, the longest of those starting together; none inside `taken`."""
    kept: list[Hit] = []
    for start, end, key in sorted(found, key=lambda hit: (hit[0], -(hit[1] - hit[0]))):
        if any(start < other_end and other_start < end for other_start, other_end in taken):
            continue
        kept.append((start, end, key))
        taken.append((start, end))
    return kept


def find_mentions(text: str, tracked: Sequence[Tracked]) -> list[Match]:
    """Every mention of the tracked brands in `text`, in order, with offsets into `text`. Text inside
    a URL is never a mention (citations are read apart)."""
    folded = fold_with_offsets(text)
    found = matcher(tuple(tracked))
    urls = [_folded_span(folded, url.start(), url.end()) for url in _URL.finditer(text)]
    exact = _without_overlaps(_exact(folded, found), list(urls))
    taken = [*urls, *((start, end) for start, end, _ in exact)]
    fuzzy = _without_overlaps(_fuzzy(text, folded, found), taken)
    matches = []
    near = set(fuzzy)
    for start, end, key in [*exact, *fuzzy]:
        first, last = folded.span(start, end)
        matches.append(Match(key, first, last, text[first:last], (start, end, key) in near))
    return sorted(matches, key=lambda match: match.start)


def _folded_span(folded: Folded, start: int, end: int) -> tuple[int, int]:
    """The folded slice covering the original [start, end)."""
    if folded.starts is None:
        return start, end
    first = next((index for index, origin in enumerate(folded.starts) if origin >= start), len(folded.starts))
    last = next((index for index, origin in enumerate(folded.starts) if origin >= end), len(folded.starts))
    return first, last
