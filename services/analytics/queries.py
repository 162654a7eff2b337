"""Data access for answers and their analyses. Plain async functions, cursor first; every read
names the organization."""

from __future__ import annotations

from typing import Any

from psycopg2.extras import Json

from libs.common.cursors import page_of
from libs.common.db import Row, fetch_all, fetch_one
from services.analytics.shapes import ANALYSIS, ANSWER, BRAND_MENTION, CITATION

ANSWER_COLUMNS = ANSWER.columns_of("a")
# Filters of the list: query field -> SQL condition on its value (`a` is the answer).
FILTERS = {
    "product_id": "a.product_id = %(product_id)s",
    "prompt_id": "a.prompt_id = %(prompt_id)s",
    "run_id": "a.run_id = %(run_id)s",
    "engine": "a.engine = %(engine)s",
    "competitor_id": "EXISTS (SELECT 1 FROM brand_mentions m WHERE m.analysis_id = a.analysis_id"
    " AND m.competitor_id = %(competitor_id)s)",
    "domain": "EXISTS (SELECT 1 FROM citations c WHERE c.analysis_id = a.analysis_id AND c.cited"
    " AND (c.domain = %(domain)s OR c.host = %(domain)s))",
    "from_": "a.answered_at >= %(from_)s",
    "to": "a.answered_at < %(to)s",
}
BRAND_MENTIONED = "EXISTS (SELECT 1 FROM brand_mentions m WHERE m.analysis_id = a.analysis_id AND m.kind = 'brand')"


async def insert_answer(cur: Any, values: dict[str, Any]) -> Row | None:
    """Store an answer; None when the organization already has one with its `external_id`."""
    return await fetch_one(
        cur,
        "INSERT INTO answers AS a (organization_id, product_id, external_id, body_sha256, source, run_id, prompt_id,"
        " prompt_version, prompt_text, topic_id, engine, model, status, text, citations, sources, input_tokens,"
        " output_tokens, cost_usd, answered_at)"
        " VALUES (%(organization_id)s, %(product_id)s, %(external_id)s, %(body_sha256)s, %(source)s, %(run_id)s,"
        " %(prompt_id)s, %(prompt_version)s, %(prompt_text)s, %(topic_id)s, %(engine)s, %(model)s, %(status)s,"
        " %(text)s, %(citations)s, %(sources)s, %(input_tokens)s, %(output_tokens)s, %(cost_usd)s, %(answered_at)s)"
        f" ON CONFLICT (organization_id, external_id) DO NOTHING RETURNING {ANSWER_COLUMNS}",
        {**values, "citations": Json(values["citations"]), "sources": Json(values["sources"])},
    )


async def answer_by_external_id(cur: Any, organization_id: str, external_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {ANSWER_COLUMNS} FROM answers a WHERE a.organization_id = %s AND a.external_id = %s",
        (organization_id, external_id),
    )


async def get_answer(cur: Any, organization_id: str, answer_id: str) -> Row | None:
    return await fetch_one(
        cur,
        f"SELECT {ANSWER_COLUMNS} FROM answers a WHERE a.id = %s AND a.organization_id = %s",
        (answer_id, organization_id),
    )


async def list_answers(cur: Any, organization_id: str, query: dict[str, Any]) -> tuple[list[Row], str | None]:
    """A page of the organization's answers, newest first, by the query's filters."""
    where = ["a.organization_id = %(org)s"]
    where += [condition for field, condition in FILTERS.items() if field in query]
    if "brand_mentioned" in query:
        where.append(BRAND_MENTIONED if query["brand_mentioned"] else f"NOT {BRAND_MENTIONED}")
    after = query.get("cursor")
    if after:
        where.append("(a.answered_at, a.id) < (%(after_at)s, %(after_id)s)")
    rows = await fetch_all(
        cur,
        f"SELECT {ANSWER_COLUMNS} FROM answers a WHERE {' AND '.join(where)}"
        " ORDER BY a.answered_at DESC, a.id DESC LIMIT %(limit)s",
        {
            **{field: query.get(field) for field in FILTERS},
            "org": organization_id,
            "after_at": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": query["limit"] + 1,
        },
    )
    return page_of(rows, query["limit"], lambda row: (row["answered_at"], str(row["id"])))


async def analyses_of(cur: Any, analysis_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The analyses named, each with its brands (by position) and citations (in order), by id."""
    if not analysis_ids:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for row in await fetch_all(
        cur,
        f"SELECT {ANALYSIS.columns} FROM analyses WHERE id = ANY(%s::uuid[])",
        (analysis_ids,),
    ):
        found[str(row["id"])] = {**row, "brands": [], "citations": []}
    for row in await fetch_all(
        cur,
        f"SELECT analysis_id, {BRAND_MENTION.columns} FROM brand_mentions WHERE analysis_id = ANY(%s::uuid[])"
        " ORDER BY position",
        (analysis_ids,),
    ):
        found[str(row["analysis_id"])]["brands"].append(row)
    for row in await fetch_all(
        cur,
        f"SELECT analysis_id, {CITATION.columns} FROM citations WHERE analysis_id = ANY(%s::uuid[]) ORDER BY ordinal",
        (analysis_ids,),
    ):
        found[str(row["analysis_id"])]["citations"].append(row)
    return found


async def request_reanalysis(cur: Any, organization_id: str, product_id: str, answer_ids: list[str] | None) -> int:
    """Mark the product's answers (or those of `answer_ids` among them) to be analysed again; how many.
    They are locked in id order first: a plan's own order (the product's index reads ids
    descending, the primary key ascending) would let two requests each hold what the other waits for."""
    await cur.execute(
        "UPDATE answers SET reanalyse = true, analyse_after = '-infinity' WHERE id = ANY(ARRAY("
        " SELECT id FROM answers WHERE organization_id = %s AND product_id = %s"
        " AND (%s::uuid[] IS NULL OR id = ANY(%s::uuid[])) ORDER BY id FOR UPDATE))",
        (organization_id, product_id, answer_ids, answer_ids),
    )
    count: int = cur.rowcount
    return count
