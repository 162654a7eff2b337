"""The analyser: takes answers without an analysis (oldest first, `SKIP LOCKED`, so replicas share
the queue), reads each product's brand set, analyses, links each cited page to the organization's
App route that serves it (services/analytics/route_links.py) and stores the result beside the answer.

A product whose brand set or route links cannot be read (their owner down) is tried again later, with backoff; a
product gone (deleted) leaves its answers without analysis, tried again rarely.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from psycopg2.extras import Json

from libs.common import errors
from libs.common.db import Row, fetch_all, fetch_value, transaction
from libs.common.tasks import report_failure
from services.analytics.analysis.analyse import ANALYSIS_VERSION, Analysis, analyse
from services.analytics.brand_sets import BRAND, BrandSet, BrandSets
from services.analytics.route_links import RouteLink, RouteLinks

log = logging.getLogger(__name__)

BATCH = 50
WAITING = (
    "SELECT id, organization_id::text, product_id::text, engine, prompt_id, topic_id, answered_at, text, citations,"
    " sources, analysis_attempts FROM answers"
)
DUE = "analyse_after <= now() ORDER BY analyse_after, created_at LIMIT %s FOR UPDATE SKIP LOCKED"
BACKOFF_SECONDS = 5.0
BACKOFF_MAX_SECONDS = 3600.0


def _pages(entries: list[dict[str, Any]]) -> list[dict[str, str | None]]:
    return [{"url": entry.get("url"), "title": entry.get("title")} for entry in entries]


def run(answer: Row, found: BrandSet) -> Analysis:
    return analyse(answer["text"], found.tracked, found.holders, _pages(answer["citations"]), _pages(answer["sources"]))


async def store(
    cur: Any, answer: Row, found: BrandSet, analysis: Analysis, links: Mapping[str, RouteLink] | None = None
) -> str:
    """Write an analysis of `answer` and make it the current one; its id."""
    analysis_id = await write(cur, answer, found, analysis, links)
    await make_current(cur, [(answer["id"], analysis_id)])
    return analysis_id


async def make_current(cur: Any, analysed: list[tuple[str, str]]) -> None:
    """Make each (answer, analysis) the answer's current analysis, in one statement: the trigger
    that moves the rollups (daily and hourly, migrations/004_rollups.sql, 012_hourly_rollups.sql)
    moves them all at once."""
    await cur.execute(
        "UPDATE answers SET analysis_id = made.analysis_id, reanalyse = false, analysis_attempts = 0"
        " FROM unnest(%s::uuid[], %s::uuid[]) AS made (answer_id, analysis_id) WHERE answers.id = made.answer_id",
        ([answer_id for answer_id, _ in analysed], [analysis_id for _, analysis_id in analysed]),
    )


async def write(
    cur: Any, answer: Row, found: BrandSet, analysis: Analysis, links: Mapping[str, RouteLink] | None = None
) -> str:
    """Write an analysis of `answer`, not yet its current one, each cited page with the App route of
    `links` that serves it (none when absent); its id."""
    links = links or {}
    analysis_id: str = await fetch_value(
        cur,
        "INSERT INTO analyses (answer_id, organization_id, version, competitor_set_version, brand)"
        " VALUES (%s, %s, %s, %s, %s) RETURNING id::text",
        (answer["id"], answer["organization_id"], ANALYSIS_VERSION, found.version, Json(found.brand)),
    )
    dimensions = {
        "answer_id": answer["id"],
        "organization_id": answer["organization_id"],
        "product_id": answer["product_id"],
        "engine": answer["engine"],
        "prompt_id": answer["prompt_id"],
        "topic_id": answer["topic_id"],
        "answered_at": answer["answered_at"],
        "analysis_id": analysis_id,
    }
    for brand in analysis.brands:
        spans = [
            {"start": m.start, "end": m.end, "text": m.text, "fuzzy": m.fuzzy}
            for m in analysis.mentions
            if m.key == brand.key
        ]
        await cur.execute(
            "INSERT INTO brand_mentions (analysis_id, brand_key, answer_id, organization_id, product_id, kind,"
            " competitor_id, name, mentions, first_offset, position, list_rank, bucket, sentiment_label,"
            " sentiment_score, spans, engine, prompt_id, topic_id, answered_at, competitor_set_version)"
            " VALUES (%(analysis_id)s, %(key)s, %(answer_id)s, %(organization_id)s, %(product_id)s, %(kind)s,"
            " %(competitor_id)s, %(name)s, %(mentions)s, %(first_offset)s, %(position)s, %(list_rank)s, %(bucket)s,"
            " %(label)s, %(score)s, %(spans)s, %(engine)s, %(prompt_id)s, %(topic_id)s, %(answered_at)s,"
            " %(version)s)",
            {
                **dimensions,
                "key": brand.key,
                "kind": brand.kind,
                "competitor_id": None if brand.key == BRAND else brand.key,
                "name": found.names[brand.key],
                "mentions": brand.mentions,
                "first_offset": brand.first_offset,
                "position": brand.position,
                "list_rank": brand.list_rank,
                "bucket": brand.bucket,
                "label": brand.sentiment.label,
                "score": brand.sentiment.score,
                "spans": Json(spans),
                "version": found.version,
            },
        )
    for ordinal, citation in enumerate(analysis.citations):
        link = links.get(citation.url)
        await cur.execute(
            "INSERT INTO citations (analysis_id, ordinal, answer_id, organization_id, product_id, url, host, domain,"
            " cited, classification, competitor_id, title, spans, engine, prompt_id, topic_id, answered_at, app_id,"
            " route_id, route_path)"
            " VALUES (%(analysis_id)s, %(ordinal)s, %(answer_id)s, %(organization_id)s, %(product_id)s, %(url)s,"
            " %(host)s, %(domain)s, %(cited)s, %(classification)s, %(competitor_id)s, %(title)s, %(spans)s,"
            " %(engine)s, %(prompt_id)s, %(topic_id)s, %(answered_at)s, %(app_id)s, %(route_id)s, %(route_path)s)",
            {
                "app_id": None if link is None else link.app_id,
                "route_id": None if link is None else link.route_id,
                "route_path": None if link is None else link.path,
                **dimensions,
                "ordinal": ordinal,
                "url": citation.url,
                "host": citation.host,
                "domain": citation.domain,
                "cited": citation.cited,
                "classification": citation.classification,
                "competitor_id": citation.competitor,
                "title": citation.title,
                "spans": Json([{"start": start, "end": end} for start, end in citation.spans]),
            },
        )
    return analysis_id


class Analyser:
    """One step analyses a batch; `wake` starts the next step at once (an answer just stored)."""

    def __init__(self, pool: Any, brand_sets: BrandSets, route_links: RouteLinks) -> None:
        self._pool = pool
        self._brand_sets = brand_sets
        self._route_links = route_links
        self.woken = asyncio.Event()

    def wake(self) -> None:
        self.woken.set()

    async def step(self) -> int:
        """Analyse up to BATCH waiting answers; how many were analysed."""
        self.woken.clear()
        done = 0
        brand_set_of = self._brand_sets.batch()
        analysed: list[tuple[str, str]] = []
        async with transaction(self._pool) as cur:
            # Answers never analysed first, then those asked to be analysed again.
            answers = await fetch_all(cur, f"{WAITING} WHERE analysis_id IS NULL AND {DUE}", (BATCH,))
            if len(answers) < BATCH:
                answers += await fetch_all(cur, f"{WAITING} WHERE reanalyse AND {DUE}", (BATCH - len(answers),))
            for answer in answers:
                try:
                    found = await brand_set_of(answer["organization_id"], answer["product_id"])
                    analysis = run(answer, found)
                    urls = [citation.url for citation in analysis.citations]
                    links = await self._route_links.of(answer["organization_id"], urls) if urls else {}
                except errors.ApiError as error:
                    await _later(cur, answer, error)
                    continue
                analysed.append((answer["id"], await write(cur, answer, found, analysis, links)))
                done += 1
            if analysed:
                await make_current(cur, analysed)
        return done

    async def work(self, stopping: asyncio.Event, idle_seconds: float = 1.0) -> None:
        """Steps until `stopping`: at once while answers wait, else on a wake or every `idle_seconds`."""
        while not stopping.is_set():
            try:
                if await self.step():
                    continue
            except Exception as exc:  # a failed round must not end the loop; the next round retries
                report_failure(exc, "analysing answers")  # a store's outage: one line at its start, one at its end
            waits = [asyncio.ensure_future(self.woken.wait()), asyncio.ensure_future(stopping.wait())]
            await asyncio.wait(waits, timeout=idle_seconds, return_when=asyncio.FIRST_COMPLETED)
            for waiting in waits:
                waiting.cancel()


async def _later(cur: Any, answer: Row, error: errors.ApiError) -> None:
    delay = min(BACKOFF_SECONDS * 2 ** answer["analysis_attempts"], BACKOFF_MAX_SECONDS)
    log.warning("analysis of answer %s postponed %.0fs: %s", answer["id"], delay, error.message)
    await cur.execute(
        "UPDATE answers SET analyse_after = now() + %s, analysis_attempts = analysis_attempts + 1 WHERE id = %s",
        (timedelta(seconds=delay), answer["id"]),
    )
