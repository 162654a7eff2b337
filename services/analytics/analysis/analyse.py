"""One answer analysed: each tracked brand it names (how often, first where, its position among the
brands named, its rank in a list, its place in the text, the sentiment around it) and its citations,
each with where the text writes it.

ANALYSIS_VERSION names the rules below; an answer analysed under older rules can be analysed again.
Version 2 records where the text writes each cited URL (version 1 recorded no such spans).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.analytics.analysis.citations import Citation, Owner, classify
from services.analytics.analysis.lists import rank_at, ranked_items
from services.analytics.analysis.mentions import Match, Tracked, find_mentions
from services.analytics.analysis.sentiment import Sentiment, sentences, sentiment_of

ANALYSIS_VERSION = 2
BUCKETS = ("top", "middle", "bottom")


@dataclass(frozen=True)
class BrandResult:
    key: str
    kind: str
    mentions: int
    first_offset: int
    position: int
    list_rank: int | None
    bucket: str
    sentiment: Sentiment


@dataclass(frozen=True)
class Analysis:
    mentions: list[Match]
    brands: list[BrandResult]
    citations: list[Citation]


def bucket(offset: int, length: int) -> str:
    """Which third of the text `offset` falls in."""
    return BUCKETS[min(2, offset * 3 // max(length, 1))]


def analyse(
    text: str,
    tracked: Sequence[Tracked],
    holders: Sequence[Owner],
    cited: Sequence[dict[str, str | None]] = (),
    retrieved: Sequence[dict[str, str | None]] = (),
) -> Analysis:
    mentions = find_mentions(text, tracked)
    items = ranked_items(text)
    spans = sentences(text)
    kinds = {brand.key: brand.kind for brand in tracked}
    firsts: dict[str, int] = {}
    for match in mentions:
        firsts.setdefault(match.key, match.start)
    brands = []
    for position, (key, first) in enumerate(sorted(firsts.items(), key=lambda entry: entry[1]), start=1):
        own = [match for match in mentions if match.key == key]
        ranks = [rank for match in own if (rank := rank_at(items, match.start)) is not None]
        around = [text[s.start : s.end] for s in spans if any(s.start <= m.start < s.end for m in own)]
        brands.append(
            BrandResult(
                key,
                kinds[key],
                len(own),
                first,
                position,
                ranks[0] if ranks else None,
                bucket(first, len(text)),
                sentiment_of(around),
            )
        )
    return Analysis(mentions, brands, classify(text, cited, retrieved, holders))
