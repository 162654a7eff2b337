"""The hourly and daily rollups follow every analysis: after random answers (some failed, empty or
refused), re-analyses, a competitor added and older analyses made current again by plain updates,
they equal a rebuild from the raw rows (by hour; its hours summed by UTC day), and they count what
was sent."""

from __future__ import annotations

import random
from datetime import UTC
from typing import Any

import aiopg

from libs.common.db import cursor, fetch_all, fetch_value
from tests.analytics.conftest import Collector
from tests.factories import eventually

FRAGMENTS = (
    "Acme is excellent and fast.",
    "Globex is terrible and slow.",
    "Acme Cloud works fine, Notion too.",
    "1. Notion\n2. Acme\n3. Globex",
    "Initech is a newer option.",
    "See https://acme.com/pricing for details.",
    "Nothing we track here.",
)
PAGES = ("https://acme.com/a", "https://www.globex.com/b", "https://news.example.co.uk/c", "https://notion.so/d")
ENGINES = ("openai-search", "perplexity-sonar", "anthropic-web")
# The measures of each table follow its key columns; the third is its day or its hour.
KEY_COLUMNS = {"rollup_answers": 7, "rollup_brands": 8, "rollup_domains": 8}
# The rows of a table's hourly rollups, from the raw rows.
REBUILT = """
WITH current AS (
    SELECT array_agg(analysis_id) AS ids, array_agg(1) AS signs
    FROM answers WHERE organization_id = %s AND analysis_id IS NOT NULL
)
SELECT r.* FROM current, {table}_of(current.ids, current.signs) r
"""


def random_answer(rng: random.Random, collector: Collector) -> dict[str, Any]:
    status = rng.choice(("completed",) * 6 + ("failed", "empty", "refused"))
    text = "" if status == "empty" else " ".join(rng.sample(FRAGMENTS, rng.randint(1, 3)))
    return collector.answer(
        text,
        status=status,
        engine=rng.choice(ENGINES),
        answeredAt=f"2026-11-{rng.randint(18, 22)}T{rng.randint(0, 23):02d}:30:00Z",
        citations=[{"url": url, "title": None} for url in rng.sample(PAGES, rng.randint(0, 2))],
        sources=[{"url": url} for url in rng.sample(PAGES, rng.randint(0, 2))],
    )


async def send_random(rng: random.Random, collector: Collector, count: int) -> list[dict[str, Any]]:
    sent = []
    for _ in range(count):
        body = random_answer(rng, collector)
        status, answer = await collector.tenant.call("POST", "/api/v1/answers", json=body)
        assert status == 201, answer
        sent.append(body)
    return sent


async def settled(pool: aiopg.Pool, organization_id: str) -> None:
    """Until every answer of the organization holds its current analysis."""

    async def done() -> bool:
        async with cursor(pool) as cur:
            waiting = await fetch_value(
                cur,
                "SELECT count(*) FROM answers WHERE organization_id = %s AND (analysis_id IS NULL OR reanalyse)",
                (organization_id,),
            )
        return bool(waiting == 0)

    await eventually(done, within=60)


def by_day(hourly: set[tuple[Any, ...]], keys: int) -> set[tuple[Any, ...]]:
    """Rows by hour summed by UTC day."""
    days: dict[tuple[Any, ...], list[Any]] = {}
    for row in hourly:
        key = (*row[:2], row[2].astimezone(UTC).date(), *row[3:keys])
        summed = days.get(key, [0] * len(row[keys:]))
        days[key] = [total + value for total, value in zip(summed, row[keys:], strict=True)]
    return {(*key, *measures) for key, measures in days.items()}


async def tables(pool: aiopg.Pool, organization_id: str) -> tuple[dict[str, set[tuple[Any, ...]]], ...]:
    """The stored rollups of the organization, hourly and daily (rows of only zeros left out), and
    their rebuild."""
    stored, rebuilt = {}, {}
    async with cursor(pool) as cur:
        for table, keys in KEY_COLUMNS.items():
            for name in (table, f"{table}_hourly"):
                rows = await fetch_all(cur, f"SELECT * FROM {name} WHERE organization_id = %s", (organization_id,))
                stored[name] = {tuple(row.values()) for row in rows if any(list(row.values())[keys:])}
            rows = await fetch_all(cur, REBUILT.format(table=table), (organization_id,))
            rebuilt[f"{table}_hourly"] = {tuple(row.values()) for row in rows}
            rebuilt[table] = by_day(rebuilt[f"{table}_hourly"], keys)
    return stored, rebuilt


async def test_rollups_equal_a_rebuild_after_random_writes_and_reanalyses(collector: Collector, analytics_pool):
    rng = random.Random(20261128)
    tenant = collector.tenant
    sent = await send_random(rng, collector, 30)
    await settled(analytics_pool, tenant.org.id)
    stored, rebuilt = await tables(analytics_pool, tenant.org.id)
    assert stored == rebuilt
    completed = sum(answer["status"] == "completed" for answer in sent)
    assert sum(row[7] for row in stored["rollup_answers"]) == completed
    assert sum(row[7] for row in stored["rollup_answers_hourly"]) == completed
    assert {row[6] for row in stored["rollup_answers"]} == {2}
    assert {row[2].minute for row in stored["rollup_answers_hourly"]} == {0}

    # A new competitor (the set's version moves) and every answer analysed again, while more arrive.
    status, answer = await tenant.call(
        "POST", f"/api/v1/products/{tenant.product['id']}/competitors", json={"name": "Initech"}
    )
    assert status == 201, answer
    status, answer = await tenant.call("POST", "/api/v1/answers/reanalyse", json={"productId": tenant.product["id"]})
    assert status == 202, answer
    sent += await send_random(rng, collector, 10)
    await settled(analytics_pool, tenant.org.id)
    stored, rebuilt = await tables(analytics_pool, tenant.org.id)
    assert stored == rebuilt
    completed = sum(answer["status"] == "completed" for answer in sent)
    assert sum(row[7] for row in stored["rollup_answers"]) == completed
    assert {row[6] for row in stored["rollup_answers"]} == {3}
    brands = {row[7] for row in stored["rollup_brands"]}
    assert "brand" in brands and len(brands) == 4

    # Any writer that changes an answer's current analysis moves the rollups: older analyses made
    # current again, one answer a statement, as a writer knowing nothing of rollups would.
    async with cursor(analytics_pool) as cur:
        older = await fetch_all(
            cur,
            "SELECT DISTINCT ON (n.answer_id) n.answer_id, n.id FROM analyses n JOIN answers a ON a.id = n.answer_id"
            " WHERE a.organization_id = %s AND n.id <> a.analysis_id ORDER BY n.answer_id, n.created_at",
            (tenant.org.id,),
        )
        assert len(older) >= 20
        for row in older[:20]:
            await cur.execute("UPDATE answers SET analysis_id = %s WHERE id = %s", (row["id"], row["answer_id"]))
    stored, rebuilt = await tables(analytics_pool, tenant.org.id)
    assert stored == rebuilt
    assert {row[6] for row in stored["rollup_answers"]} == {2, 3}
