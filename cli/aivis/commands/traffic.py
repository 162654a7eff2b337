"""`aivis traffic`: AI agents' requests to the organization's Apps (logs) and their summary."""

from __future__ import annotations

from typing import Any

import click

from aivis.api import Endpoint
from aivis.context import Context, pass_context
from aivis.inputs import compact
from aivis.output import json_option, when
from aivis.paging import cursor_option, print_page

LOGS = Endpoint("GET", "/api/v1/ai-traffic/logs")
SUMMARY = Endpoint("GET", "/api/v1/ai-traffic/summary")

LOG_COLUMNS = (when("occurredAt"), "botId", "verified", "matchedBy", "status", "host", "path")
GROUP_COLUMNS = ("key", "visits", "verifiedVisits", "success", "failure", "bytes")
GROUPS = ("bot", "operator", "category", "path", "statusClass", "verified")


def _percent(ratio: dict[str, Any]) -> str:
    """`97.5% (39/40)`; `-` when nothing was counted."""
    if ratio["value"] is None:
        return "-"
    return f"{ratio['value'] * 100:.1f}% ({ratio['count']}/{ratio['total']})"


@click.group()
def traffic() -> None:
    """AI agents' requests to the organization's Apps (scopes logs:read, analytics:read)."""


@traffic.command("logs")
@click.option("--app", "app_id", help="Only this App's requests (its id).")
@click.option("--host", help="Only requests to this host name.")
@click.option("--bot", "bot_id", help="Only this agent (an id of `GET /ai-traffic/bots`, e.g. gptbot).")
@click.option("--category", type=click.Choice(("training", "search", "user_fetch", "agent", "dataset", "other")))
@click.option("--verified/--unverified", default=None, help="Only verified, or only unverified, agents.")
@click.option("--status-class", type=click.Choice(("1xx", "2xx", "3xx", "4xx", "5xx")))
@click.option("--path-prefix", help="Only paths starting with this.")
@click.option("--since", help="At or after this time (ISO 8601, with a zone).")
@click.option("--until", help="Before this time (ISO 8601, with a zone).")
@click.option("--limit", type=int, help="At most this many (1-200, default 50).")
@cursor_option
@json_option
@pass_context
def traffic_logs(
    context: Context,
    app_id: str | None,
    host: str | None,
    bot_id: str | None,
    category: str | None,
    verified: bool | None,
    status_class: str | None,
    path_prefix: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List recorded requests, newest first."""
    query = compact(
        appId=app_id,
        host=host,
        botId=bot_id,
        category=category,
        verified=verified,
        statusClass=status_class,
        pathPrefix=path_prefix,
        limit=limit,
        cursor=cursor,
        **{"from": since, "to": until},
    )
    data = context.api().call(LOGS, query=query)
    print_page(context.out, data["items"], LOG_COLUMNS, as_json, data["nextCursor"], "request")


@traffic.command("summary")
@click.option("--app", "app_id", help="Only this App (its id); default: every App of the organization.")
@click.option("--from", "start", help="From this whole UTC hour, inclusive (default: 7 days before --to).")
@click.option("--to", "end", help="To this whole UTC hour, exclusive (default: the next whole hour).")
@click.option("--granularity", type=click.Choice(("hour", "day", "week")), help="The series' periods (default day).")
@click.option("--group-by", type=click.Choice(GROUPS), default="bot", show_default=True)
@json_option
@pass_context
def traffic_summary(
    context: Context,
    app_id: str | None,
    start: str | None,
    end: str | None,
    granularity: str | None,
    group_by: str,
    as_json: bool,
) -> None:
    """Visits, verification, success and failure rates, by group, over a period [from, to) in UTC."""
    query = compact(appId=app_id, granularity=granularity, groupBy=group_by, **{"from": start, "to": end})
    data = context.api().call(SUMMARY, query=query)
    if as_json:
        context.out.record(data, None, True)
        return
    totals, period = data["totals"], data["period"]
    click.echo(f"[{period['from']}, {period['to']}) {period['timeZone']}")
    click.echo(
        f"visits {totals['visits']}, verified {totals['verifiedVisits']}, "
        f"success {_percent(totals['successRate'])}, failure {_percent(totals['failureRate'])}, "
        f"spoofed {totals['spoofedVisits']}, paths {totals['distinctPaths']}"
    )
    rows = [{**g, "success": _percent(g["successRate"]), "failure": _percent(g["failureRate"])} for g in data["groups"]]
    context.out.table(rows, GROUP_COLUMNS)
    for referral in data["referrals"]:
        click.echo(
            f"{referral['name']}: {referral['referrals']} referred, {referral['crawls']} crawls, "
            f"crawl-to-refer {referral['crawlToRefer']['value'] or '-'}"
        )


def register(root: click.Group) -> None:
    root.add_command(traffic)
