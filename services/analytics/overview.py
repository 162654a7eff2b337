"""A product's overview: its brand's and each competitor's visibility, share of voice, average
position, sentiment and citation rate over a period of days `[start, end)` in a named time zone and
the period of the same length before it, read from the rollups (report_sources.py: daily for UTC,
hourly for other zones) and computed by the one set of definitions
(services/analytics/metrics.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from typing import Any

from psycopg2 import sql

from libs.common.db import Row, fetch_all, fetch_value
from services.analytics import metrics
from services.analytics.brand_sets import BRAND
from services.analytics.report_sources import bounds, source

METRICS = ("visibility", "share_of_voice", "average_position", "sentiment", "citation_rate")

ANSWERS = """
SELECT day >= %(start)s AS current, sum(answers)::bigint AS answers, sum(citing_answers)::bigint AS citing_answers,
       sum(drawing_answers)::bigint AS drawing_answers, sum(citations)::bigint AS citations,
       array_agg(DISTINCT competitor_set_version ORDER BY competitor_set_version) AS versions
FROM {answers}
GROUP BY 1
"""
BRANDS = """
SELECT day >= %(start)s AS current, brand_key, sum(mentioning_answers)::bigint AS mentioning_answers,
       sum(mentions)::bigint AS mentions, sum(position_sum)::bigint AS position_sum,
       sum(sentiment_sum)::float8 AS sentiment_sum, sum(positive)::bigint AS positive,
       sum(neutral)::bigint AS neutral, sum(negative)::bigint AS negative, sum(cited_answers)::bigint AS cited_answers
FROM {brands}
GROUP BY 1, 2
"""
# The brand's name as the product's latest analysis looked for it.
BRAND_NAME = """
SELECT n.brand->>'name' FROM answers a JOIN analyses n ON n.id = a.analysis_id
WHERE a.organization_id = %(organization_id)s AND a.product_id = %(product_id)s ORDER BY a.answered_at DESC LIMIT 1
"""

EMPTY_BRAND = {
    "mentioning_answers": 0,
    "mentions": 0,
    "position_sum": 0,
    "sentiment_sum": 0.0,
    "positive": 0,
    "neutral": 0,
    "negative": 0,
    "cited_answers": 0,
}


def period_answers(row: Row | None) -> dict[str, Any]:
    """A period's answers counted (from a summed rollup row; None: no answer)."""
    if row is None:
        return {"answers": 0, "citing_answers": 0, "drawing_answers": 0, "citations": 0, "competitor_set_versions": []}
    counts = ("answers", "citing_answers", "drawing_answers", "citations")
    return {**{name: row[name] for name in counts}, "competitor_set_versions": row["versions"]}


# Each metric of a brand, from its summed rollup row, the period's answers and all its mentions.
BRAND_METRICS: dict[str, Callable[[Row, Row, int], dict[str, Any]]] = {
    "visibility": lambda row, answers, _: metrics.visibility(row["mentioning_answers"], answers["answers"]),
    "share_of_voice": lambda row, _, all_mentions: metrics.share_of_voice(row["mentions"], all_mentions),
    "average_position": lambda row, *_: metrics.average_position(row["position_sum"], row["mentioning_answers"]),
    "sentiment": lambda row, *_: metrics.sentiment(
        row["sentiment_sum"], row["positive"], row["neutral"], row["negative"]
    ),
    "citation_rate": lambda row, answers, _: metrics.citation_rate(row["cited_answers"], answers["citing_answers"]),
}


def brand_metrics(row: Row, answers: Row, all_mentions: int, names: Iterable[str] = METRICS) -> dict[str, Any]:
    """One brand's numbers over a period (`names` of them), from its summed rollup row and the
    period's answers."""
    return {name: BRAND_METRICS[name](row, answers, all_mentions) for name in names}


def overview(
    tracked: Iterable[tuple[str, str]], answer_rows: list[Row], brand_rows: list[Row]
) -> tuple[dict[bool, Row], list[dict[str, Any]]]:
    """The period's and the previous period's answers (by `current`), and each tracked brand's
    (key, name) numbers in both, the product's brand first."""
    answers = {current: period_answers(None) for current in (True, False)}
    for row in answer_rows:
        answers[row["current"]] = period_answers(row)
    by_key: dict[tuple[bool, str], Row] = {(row["current"], row["brand_key"]): row for row in brand_rows}
    # Share of voice is over every tracked brand mentioned, competitors since removed included.
    all_mentions = {True: 0, False: 0}
    for row in brand_rows:
        all_mentions[row["current"]] += row["mentions"]
    brands = []
    for key, name in tracked:
        numbers = {
            period: brand_metrics(by_key.get((current, key), EMPTY_BRAND), answers[current], all_mentions[current])
            for period, current in (("current", True), ("previous", False))
        }
        brands.append(
            {
                "kind": "brand" if key == BRAND else "competitor",
                "competitor_id": None if key == BRAND else key,
                "name": name,
                **numbers,
                "change": {m: metrics.change(numbers["current"][m], numbers["previous"][m]) for m in METRICS},
            }
        )
    return answers, brands


async def read(
    cur: Any, organization_id: str, product_id: str, start: date, end: date, zone: str, raw: bool = False
) -> tuple[list[Row], list[Row], str | None]:
    """The rollup sums of the days `[start, end)` in `zone` and of the period before it (`raw`: from
    the raw rows, report_sources.source), and the brand's latest name."""
    previous = start - (end - start)
    params = {
        **bounds(previous, end, zone),
        "organization_id": organization_id,
        "product_id": product_id,
        "start": start,
    }
    answer_rows = await fetch_all(cur, sql.SQL(ANSWERS).format(answers=source("rollup_answers", zone, raw)), params)
    brand_rows = await fetch_all(cur, sql.SQL(BRANDS).format(brands=source("rollup_brands", zone, raw)), params)
    name = await fetch_value(cur, BRAND_NAME, params)
    return answer_rows, brand_rows, name
