"""`POST /api/v1/analytics/query`: a product's brands (overall, or per engine, prompt or topic), or
the domains its answers cite and retrieve, over a period of days in a named time zone, by day,
week (from Monday) or month, read from the rollups (report_sources.py: daily for UTC, hourly for
other zones). Filters narrow the rollup rows before anything is summed, except `brand` and
`domain`, which pick the rows answered: share of voice stays over every tracked brand."""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from typing import Any

from psycopg2 import sql

from libs.common.db import Row, fetch_all
from libs.common.errors import ValidationFailed
from services.analytics import metrics
from services.analytics.brand_sets import BRAND
from services.analytics.overview import BRAND_NAME, EMPTY_BRAND, brand_metrics, period_answers
from services.analytics.report_schemas import encode_place, metrics_of
from services.analytics.report_sources import bounds, source

# The most rows a report answers at once.
ROWS_MAX = 5000
COMPARE = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}
# A report's group: the first day of its bucket and the value of the report's split (None in
# the brands and domains reports).
Group = tuple[date, str | None]
# The rollup column each filter field names.
COLUMNS = {
    "engine": "engine",
    "promptId": "prompt_id",
    "topicId": "topic_id",
    "competitorSetVersion": "competitor_set_version",
}
# The reports that split each period's brands, by the rollup column (and the row's field) of each.
SPLITS = {"engines": "engine", "prompts": "prompt_id", "topics": "topic_id"}
# Each operator over a rollup column (a null column, an answer to no tracked prompt, is in no list).
CONDITIONS = {
    "eq": "{0} = ANY(%({1})s)",
    "in": "{0} = ANY(%({1})s)",
    "not_in": "NOT coalesce({0} = ANY(%({1})s), false)",
    "prefix": "EXISTS (SELECT FROM unnest(%({1})s::text[]) AS start WHERE starts_with({0}::text, start))",
}
BUCKETS = {
    None: sql.SQL("%(start)s::date"),
    "day": sql.SQL("day"),
    "week": sql.SQL("date_trunc('week', day)::date"),
    "month": sql.SQL("date_trunc('month', day)::date"),
}
ANSWERS = """
SELECT {bucket} AS bucket, {split} AS split, sum(answers)::bigint AS answers,
       sum(citing_answers)::bigint AS citing_answers, sum(drawing_answers)::bigint AS drawing_answers,
       sum(citations)::bigint AS citations,
       array_agg(DISTINCT competitor_set_version ORDER BY competitor_set_version) AS versions
FROM {answers} WHERE {where} GROUP BY 1, 2
"""
BRANDS = """
SELECT {bucket} AS bucket, {split} AS split, brand_key, sum(mentioning_answers)::bigint AS mentioning_answers,
       sum(mentions)::bigint AS mentions, sum(position_sum)::bigint AS position_sum,
       sum(sentiment_sum)::float8 AS sentiment_sum, sum(positive)::bigint AS positive,
       sum(neutral)::bigint AS neutral, sum(negative)::bigint AS negative, sum(cited_answers)::bigint AS cited_answers
FROM {brands} WHERE {where} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
"""
DOMAINS = """
SELECT {bucket} AS bucket, {split} AS split, domain, sum(citing_answers)::bigint AS citing_answers,
       sum(drawing_answers)::bigint AS drawing_answers, sum(citations)::bigint AS citations
FROM {domains} WHERE {where} GROUP BY 1, 2, 3
"""
# A drill-down of some domains to their pages, from the raw rows: the current analyses of completed
# answers, in the period (citations_domain_idx).
URLS = """
WITH pages AS (
    SELECT c.organization_id, c.product_id, (c.answered_at AT TIME ZONE %(zone)s)::date AS day, c.engine, c.prompt_id,
           c.topic_id, n.competitor_set_version, c.domain, c.url, c.title, c.cited, c.answer_id
    FROM citations c
    JOIN answers a ON a.id = c.answer_id AND a.analysis_id = c.analysis_id AND a.status = 'completed'
    JOIN analyses n ON n.id = c.analysis_id
    WHERE c.organization_id = %(organization_id)s AND c.domain = ANY(%(domains)s)
      AND c.answered_at >= %(since)s AND c.answered_at < %(until)s
)
SELECT {bucket} AS bucket, {split} AS split, domain, url, max(title) AS title,
       count(DISTINCT answer_id) FILTER (WHERE cited) AS citing_answers, count(DISTINCT answer_id) AS drawing_answers,
       count(*) FILTER (WHERE cited) AS citations
FROM pages WHERE {where} GROUP BY 1, 2, 3, 4
"""
# The name each brand was last looked for under: the product's (as its latest analysis looked for
# it) and each competitor's (even one since removed).
NAMES = f"""
SELECT %(brand)s AS key, ({BRAND_NAME}) AS name
UNION ALL
SELECT key, (
    SELECT name FROM brand_mentions WHERE organization_id = %(organization_id)s AND competitor_id = key::uuid
    ORDER BY answered_at DESC LIMIT 1
) FROM unnest(%(competitors)s::text[]) AS key
"""


def bucket_end(start: date, granularity: str | None, end: date) -> date:
    """Where the bucket starting at `start` ends, clipped to the period's end."""
    if granularity == "day":
        stop = start + timedelta(days=1)
    elif granularity == "week":
        stop = start + timedelta(days=7)
    elif granularity == "month":
        stop = date(start.year + start.month // 12, start.month % 12 + 1, 1)
    else:
        stop = end
    return min(stop, end)


def where(filters: list[dict[str, Any]], params: dict[str, Any]) -> sql.Composed:
    """The rows in scope: the product's (a source holds the period's only, report_sources.source),
    through every filter but brand and domain (they pick rows after summing)."""
    clauses = [sql.SQL("organization_id = %(organization_id)s AND product_id = %(product_id)s")]
    for index, item in enumerate(filters):
        if item["field"] in COLUMNS:
            name = f"filter_{index}"
            params[name] = item["values"]
            test = sql.SQL(CONDITIONS[item["operator"]]).format(sql.Identifier(COLUMNS[item["field"]]), sql.SQL(name))
            clauses.append(test)
    return sql.SQL(" AND ").join(clauses)


def passes(item: dict[str, Any], value: str) -> bool:
    """Whether `value` (a brand's key, a domain) passes the filter `item`."""
    values = item["values"]
    if item["operator"] == "not_in":
        return value not in values
    if item["operator"] == "prefix":
        return any(value.startswith(start) for start in values)
    return value in values


# What reads a report's rows for a query (its period, or the one before).
Rows = Callable[[dict[str, Any]], Awaitable[list[dict[str, Any]]]]


async def run(query: dict[str, Any], rows: Rows) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the report's rows (`rows` reads them) and the cursor of the next (None at the end);
    with `compareToPrevious`, each row with the same row of the period of the same length just
    before (`previous`; null when that period has no such row)."""
    items = [item for item in await rows(query) if kept(query, item)]
    if len(items) > ROWS_MAX:
        advice = "use a coarser granularity, a shorter period or filters"
        raise ValidationFailed(details={"granularity": f"The report has {len(items)} rows, over {ROWS_MAX}: {advice}."})
    placed = sorted(((place(query, item), item) for item in items), key=operator.itemgetter(0))
    if query.get("cursor") is not None:
        try:
            placed = [(key, item) for key, item in placed if key > query["cursor"]]
        except TypeError as mismatched:
            raise ValidationFailed(
                details={"cursor": "Not a cursor of this report: send nextCursor as a page gave it."}
            ) from mismatched
    page = [item for _, item in placed[: query["limit"]]]
    after = encode_place(placed[query["limit"] - 1][0]) if len(placed) > query["limit"] else None
    if query["compare_to_previous"]:
        start, end = query["from_"], query["to"]
        before = {**query, "from_": start - (end - start), "to": start}
        previous = {match_key(item): item for item in await rows(before)}
        for item in page:
            found = previous.get(match_key(item))
            item["previous"] = None if found is None else {key: found[key] for key in PREVIOUS if key in found}
    if query.get("metrics"):
        for item in page:
            narrow(query, item)
            if item.get("previous"):
                narrow(query, item["previous"])
    return page, after


def numbers_of(item: dict[str, Any]) -> str:
    """Where a row keeps its numbers: `metrics` (brands), `domain_metrics` or `traffic`."""
    return next(name for name in ("domain_metrics", "traffic", "metrics") if name in item)


def metric_value(query: dict[str, Any], item: dict[str, Any], metric: str) -> float | None:
    found = item[numbers_of(item)][metrics_of(query["report"])[metric]]
    value: float | None = found["value"] if isinstance(found, dict) else found
    return value


def kept(query: dict[str, Any], item: dict[str, Any]) -> bool:
    """Whether the row meets every `having` condition (a null metric meets none)."""
    for condition in query["having"]:
        value = metric_value(query, item, condition["metric"])
        if value is None or not COMPARE[condition["operator"]](value, condition["value"]):
            return False
    return True


def place(query: dict[str, Any], item: dict[str, Any]) -> list[Any]:
    """The row's place in the report's order, which the keyset cursor carries: its period; then the
    `orderBy` metric's value (nulls last); then its engine, prompt or topic (null last); then the most
    cited domains and pages first, or the product's brand before its competitors; then its name."""
    key: list[Any] = [item["period"]["from_"].isoformat()]
    if query["order_by"] is not None:
        value = metric_value(query, item, query["order_by"]["metric"])
        descending = query["order_by"]["direction"] == "desc"
        key += [value is None, 0.0 if value is None else -value if descending else value]
    split = item.get(SPLITS.get(query["report"], ""))
    key += [split is None, split or ""]
    if "domain_metrics" in item:
        numbers = item["domain_metrics"]
        key += [
            -numbers["citation_share"]["count"],
            -numbers["retrieved_share"]["count"],
            item.get("url", item["domain"]),
        ]
    elif "metrics" in item:
        key += [item["competitor_id"] is not None, item["competitor_id"] or ""]
    return key


def computed_metrics(query: dict[str, Any]) -> tuple[str, ...]:
    """The metrics a report's rows need, by their names in a row: those asked for, and those its
    `having` and `orderBy` read; every one when none is asked for."""
    names = metrics_of(query["report"])
    if not query.get("metrics"):
        return tuple(names.values())
    read = [condition["metric"] for condition in query["having"]]
    if query["order_by"] is not None:
        read.append(query["order_by"]["metric"])
    return tuple(dict.fromkeys(names[name] for name in (*query["metrics"], *read)))


def narrow(query: dict[str, Any], item: dict[str, Any]) -> None:
    """Keep only the metrics asked for in a row."""
    names = metrics_of(query["report"])
    field = numbers_of(item)
    item[field] = {names[name]: item[field][names[name]] for name in query["metrics"]}


# What a row's previous counterpart carries, and what makes it the same row.
PREVIOUS = ("period", "answers", "metrics", "domain_metrics", "traffic")
MATCH = ("engine", "prompt_id", "topic_id", "kind", "competitor_id", "domain", "url")


def match_key(item: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(item.get(key) for key in MATCH)


async def period_items(
    cur: Any, organization_id: str, product_id: str, query: dict[str, Any], raw: bool = False
) -> list[dict[str, Any]]:
    """The report's rows, by bucket, then engine, prompt or topic (those reports), then brand or domain
    (`raw`: summed from the raw rows, report_sources.source)."""
    params: dict[str, Any] = {
        "organization_id": organization_id,
        "product_id": product_id,
        "start": query["from_"],
        **bounds(query["from_"], query["to"], query["time_zone"]),
    }
    zone = query["time_zone"]
    parts = {
        "answers": source("rollup_answers", zone, raw),
        "brands": source("rollup_brands", zone, raw),
        "domains": source("rollup_domains", zone, raw),
        "bucket": BUCKETS[query["granularity"]],
        "split": sql.SQL(f"{SPLITS[query['report']]}::text" if query["report"] in SPLITS else "NULL::text"),
        "where": where(query["filters"], params),
    }
    answer_rows = await fetch_all(cur, sql.SQL(ANSWERS).format(**parts), params)
    answers = {(row["bucket"], row["split"]): row for row in answer_rows}
    groups = sorted(answers, key=lambda group: (group[0], group[1] is None, group[1] or ""))
    if query["report"] == "domains":
        rows = await fetch_all(cur, sql.SQL(DOMAINS).format(**parts), params)
        return domain_items(query, groups, answers, rows, "domain")
    if query["report"] == "urls":
        domains = [value for item in query["filters"] if item["field"] == "domain" for value in item["values"]]
        rows = await fetch_all(cur, sql.SQL(URLS).format(**parts), {**params, "domains": domains})
        return domain_items(query, groups, answers, rows, "url")
    rows = await fetch_all(cur, sql.SQL(BRANDS).format(**parts), params)
    return await brand_items(cur, query, params, groups, answers, rows)


def period_of(query: dict[str, Any], bucket: date) -> dict[str, date]:
    return {"from_": max(bucket, query["from_"]), "to": bucket_end(bucket, query["granularity"], query["to"])}


async def brand_items(
    cur: Any,
    query: dict[str, Any],
    params: dict[str, Any],
    groups: list[Group],
    answers: dict[Group, Row],
    brand_rows: list[Row],
) -> list[dict[str, Any]]:
    """Every brand in every group that has answers (a brand not named there is named by none of
    them)."""
    all_mentions: dict[Group, int] = defaultdict(int)
    for row in brand_rows:
        all_mentions[row["bucket"], row["split"]] += row["mentions"]
    picked = [item for item in query["filters"] if item["field"] == "brand"]
    # The product's brand always; a competitor when some answer of the period names it.
    named = {BRAND} | {row["brand_key"] for row in brand_rows}
    keys = sorted(
        (key for key in named if all(passes(item, key) for item in picked)), key=lambda key: (key != BRAND, key)
    )
    by_group = {(row["bucket"], row["split"], row["brand_key"]): row for row in brand_rows}
    names = {
        row["key"]: row["name"]
        for row in await fetch_all(
            cur,
            NAMES,
            {
                **params,
                "brand": BRAND,
                "competitors": [key for key in keys if key != BRAND],
            },
        )
    }
    computed = computed_metrics(query)
    items = []
    for group in groups:
        counted = answers[group]
        for key in keys:
            item = {
                "period": period_of(query, group[0]),
                "kind": "brand" if key == BRAND else "competitor",
                "competitor_id": None if key == BRAND else key,
                "name": names.get(key),
                "answers": period_answers(counted),
                "metrics": brand_metrics(
                    by_group.get((*group, key), EMPTY_BRAND), counted, all_mentions[group], computed
                ),
            }
            if query["report"] in SPLITS:
                item[SPLITS[query["report"]]] = group[1]
            items.append(item)
    return items


def domain_items(
    query: dict[str, Any], groups: list[Group], answers: dict[Group, Row], domain_rows: list[Row], key: str
) -> list[dict[str, Any]]:
    """The domains or pages (`key`) of each group."""
    by_group: dict[Group, list[Row]] = defaultdict(list)
    for row in domain_rows:
        by_group[row["bucket"], row["split"]].append(row)
    picked = [item for item in query["filters"] if item["field"] == "domain"]
    items = []
    for group in groups:
        counted = answers[group]
        kept = [row for row in by_group[group] if all(passes(item, row["domain"]) for item in picked)]
        for row in kept:
            items.append(
                {
                    "period": period_of(query, group[0]),
                    "domain": row["domain"],
                    **({"url": row["url"], "title": row["title"]} if key == "url" else {}),
                    "answers": period_answers(counted),
                    "domain_metrics": {
                        "citation_rate": metrics.citation_rate(row["citing_answers"], counted["citing_answers"]),
                        "retrieved_share": metrics.retrieved_share(row["drawing_answers"], counted["drawing_answers"]),
                        "citation_share": metrics.citation_share(row["citations"], counted["citations"]),
                    },
                }
            )
    return items
