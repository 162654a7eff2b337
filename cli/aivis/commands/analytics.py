"""`aivis analytics`: a product's numbers in AI answers — the overview (visibility, share of voice,
position, sentiment, citation rate of the brand and each competitor, beside the period before)
and any report of `POST /api/v1/analytics/query`."""

from __future__ import annotations

from typing import Any

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, plural
from aivis.paging import cursor_option
from aivis.resolve import product_option

OVERVIEW = Endpoint("GET", "/api/v1/products/{productId}/analytics/overview")
QUERY = Endpoint("POST", "/api/v1/analytics/query")

REPORTS = ("brands", "engines", "prompts", "topics", "domains", "urls")
BRAND_NUMBERS = ("visibility", "shareOfVoice", "averagePosition", "sentiment", "citationRate")
DOMAIN_NUMBERS = ("citationRate", "retrievedShare", "citationShare")
SPLITS = ("engine", "promptId", "topicId")
zone_option = click.option("--time-zone", help="The IANA zone the days start in (default UTC), e.g. Europe/Paris.")


def number(metric: dict[str, Any] | None) -> str:
    """A proportion as `42.0% (21/50)`, a mean as `1.50 (n=4)`; `-` when nothing was counted."""
    if metric is None or metric["value"] is None:
        return "-"
    if "total" in metric:
        return f"{metric['value'] * 100:.1f}% ({metric['count']}/{metric['total']})"
    return f"{metric['value']:.2f} (n={metric['count']})"


def signed(change: float | None, percent: bool) -> str:
    if change is None:
        return "-"
    return f"{change * 100:+.1f}" if percent else f"{change:+.2f}"


@click.group()
def analytics() -> None:
    """A product's numbers in AI answers (scope analytics:read)."""


@analytics.command("overview")
@product_option()
@click.option("--from", "start", help="The first day, included (YYYY-MM-DD); with --to (default: the last 30 days).")
@click.option("--to", "end", help="The day after the last, excluded (YYYY-MM-DD).")
@zone_option
@json_option
@pass_context
def analytics_overview(
    context: Context, product_id: str, start: str | None, end: str | None, time_zone: str | None, as_json: bool
) -> None:
    """The brand and each competitor over [from, to), beside the period of the same length before."""
    query = compact(timeZone=time_zone, **{"from": start, "to": end})
    data = context.api().call(OVERVIEW, query=query, productId=product_id)
    if as_json:
        context.out.record(data, None, True)
        return
    period, before = data["period"], data["previousPeriod"]
    now, then = plural(data["answers"]["answers"], "answer"), plural(data["previousAnswers"]["answers"], "answer")
    click.echo(f"[{period['from']}, {period['to']}) {data['timeZone']}: {now}")
    click.echo(f"before [{before['from']}, {before['to']}): {then}")
    rows = []
    for brand in data["brands"]:
        current, change = brand["current"], brand["change"]
        rows.append(
            {
                "name": brand["name"],
                "kind": brand["kind"],
                "visibility": number(current["visibility"]),
                "vis+-": signed(change["visibility"], True),
                "shareOfVoice": number(current["shareOfVoice"]),
                "sov+-": signed(change["shareOfVoice"], True),
                "position": number(current["averagePosition"]),
                "sentiment": number(current["sentiment"]),
                "citationRate": number(current["citationRate"]),
            }
        )
    context.out.table(
        rows, ("name", "kind", "visibility", "vis+-", "shareOfVoice", "sov+-", "position", "sentiment", "citationRate")
    )


def filters_of(values: tuple[str, ...]) -> list[dict[str, Any]]:
    """`--filter field=a,b` (in), `field!=a,b` (not_in), `field^=a` (prefix) as the query's filters."""
    found = []
    for text in values:
        for sign, operator in (("!=", "not_in"), ("^=", "prefix"), ("=", "in")):
            if sign in text:
                field, _, listed = text.partition(sign)
                found.append({"field": field.strip(), "operator": operator, "values": listed.split(",")})
                break
        else:
            raise click.BadParameter(f"{text!r}: write field=a,b, field!=a,b or field^=prefix", param_hint="--filter")
    return found


@analytics.command("query")
@product_option()
@click.option("--report", type=click.Choice(REPORTS), default="brands", show_default=True)
@click.option("--from", "start", required=True, help="The first day, included (YYYY-MM-DD).")
@click.option("--to", "end", required=True, help="The day after the last, excluded (YYYY-MM-DD).")
@zone_option
@click.option("--granularity", type=click.Choice(("day", "week", "month")), help="Rows by period (default: none).")
@click.option("--filter", "filters", multiple=True, help="field=a,b, field!=a,b or field^=prefix; repeatable.")
@click.option("--order-by", help="A metric, e.g. shareOfVoice; `-shareOfVoice` for descending.")
@click.option("--metric", "metrics", multiple=True, help="Only these metrics (repeatable).")
@click.option("--compare", is_flag=True, help="Give each row the period of the same length just before.")
@click.option("--limit", type=int, help="Rows of a page (1-1000, default 100).")
@cursor_option
@json_option
@pass_context
def analytics_query(
    context: Context,
    product_id: str,
    report: str,
    start: str,
    end: str,
    time_zone: str | None,
    granularity: str | None,
    filters: tuple[str, ...],
    order_by: str | None,
    metrics: tuple[str, ...],
    compare: bool,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """A page of a report over [from, to): brands, per engine, prompt or topic, or cited domains and pages."""
    body = compact(
        report=report,
        productId=product_id,
        timeZone=time_zone,
        granularity=granularity,
        limit=limit,
        cursor=cursor,
        **{"from": start, "to": end},
    )
    if filters:
        body["filters"] = filters_of(filters)
    if order_by:
        body["orderBy"] = {"metric": order_by.lstrip("-"), "direction": "desc" if order_by.startswith("-") else "asc"}
    if metrics:
        body["metrics"] = list(metrics)
    if compare:
        body["compareToPrevious"] = True
    data = context.api().call(QUERY, body=body)
    if as_json:
        context.out.record(data, None, True)
        return
    domains = report in ("domains", "urls")
    names = DOMAIN_NUMBERS if domains else BRAND_NUMBERS
    rows = []
    for item in data["items"]:
        numbers = item.get("domainMetrics" if domains else "metrics") or {}
        row = {
            "from": item["period"]["from"],
            "to": item["period"]["to"],
            "split": next((str(item[key]) for key in SPLITS if key in item), ""),
            "name": item.get("url") or item.get("domain") or item.get("name") or "",
            **{name: number(numbers.get(name)) for name in names if name in numbers},
        }
        rows.append(row)
    columns = [
        "from",
        "to",
        *(["split"] if report in ("engines", "prompts", "topics") else []),
        "name",
        *(name for name in names if any(name in row for row in rows)),
    ]
    context.out.table(rows, columns)
    note = plural(len(rows), "row") + (f"; the next page: --cursor {data['nextCursor']}" if data["nextCursor"] else "")
    click.echo(note, err=True)


def register(root: click.Group) -> None:
    root.add_command(analytics)
