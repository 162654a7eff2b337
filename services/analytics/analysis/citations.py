"""The pages an answer cites (named in its text, or returned as its citations) and those its engine
only retrieved, each classified as owned, competitor or third party, with where its text writes it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.analytics.analysis.mentions import Tracked
from services.analytics.analysis.urls import host_name, host_of, normalise, registrable_domain, within

_URL_IN_TEXT = re.compile(r"https?://[^\s<>()\[\]\"'`]+", re.IGNORECASE)
# Punctuation that ends a sentence, not a URL ("see https://acme.com/docs.").
_TRAILING = ".,;:!?*_"


@dataclass(frozen=True)
class Owner:
    """Who holds some domains: the brand ("owned") or a competitor (its key)."""

    key: str
    kind: str
    domains: tuple[str, ...]


@dataclass(frozen=True)
class Citation:
    url: str
    domain: str
    host: str
    cited: bool
    classification: str
    competitor: str | None
    title: str | None
    # Where the text writes the page's URL, in any of its spellings: [start, end) offsets, in order.
    spans: tuple[tuple[int, int], ...]


def owners(tracked: Sequence[Tracked], domains: dict[str, Sequence[str]]) -> list[Owner]:
    """The tracked brands with domains, by key; `domains` maps a key to its hostnames."""
    return [
        Owner(brand.key, brand.kind, tuple(host_name(domain) for domain in domains.get(brand.key, ())))
        for brand in tracked
        if domains.get(brand.key)
    ]


def _classify(host: str, holders: Sequence[Owner]) -> tuple[str, str | None]:
    for holder in sorted(holders, key=lambda holder: holder.kind != "brand"):  # the brand's own first
        if within(host, list(holder.domains)):
            return ("owned", None) if holder.kind == "brand" else ("competitor", holder.key)
    return "third_party", None


def urls_in_text(text: str) -> list[tuple[str, int, int]]:
    """Each URL written in `text` as (url, start, end), without the punctuation that ends its sentence."""
    found = []
    for match in _URL_IN_TEXT.finditer(text):
        url = match.group().rstrip(_TRAILING)
        found.append((url, match.start(), match.start() + len(url)))
    return found


Page = dict[str, str | None]


def classify(text: str, cited: Sequence[Page], retrieved: Sequence[Page], holders: Sequence[Owner]) -> list[Citation]:
    """Each page once, in order: cited ones (the engine's citations, then URLs written in the text),
    then pages only retrieved. A URL that is not http(s) is left out. Each carries the spans of the
    text writing it, whichever spelling (tracking parameters, a trailing slash) each one has."""
    written = [(normalise(raw), start, end) for raw, start, end in urls_in_text(text)]
    spans: dict[str, list[tuple[int, int]]] = {}
    for url, start, end in written:
        if url is not None:
            spans.setdefault(url, []).append((start, end))
    seen: dict[str, Citation] = {}
    candidates = [
        *((normalise(entry.get("url") or ""), entry.get("title"), True) for entry in cited),
        *((url, None, True) for url, _, _ in written),
        *((normalise(entry.get("url") or ""), entry.get("title"), False) for entry in retrieved),
    ]
    for url, title, is_cited in candidates:
        if url is None or url in seen:
            continue
        host = host_of(url)
        classification, competitor = _classify(host, holders)
        found = tuple(spans.get(url, ()))
        seen[url] = Citation(url, registrable_domain(host), host, is_cited, classification, competitor, title, found)
    return list(seen.values())
