"""The demo product's visibility: its brand, competitors, tracked prompts and analysed answers of
the three engines over the last two weeks, so the answer pages have something to show without any
engine's key. Written through each part's own code; the answers' collector ids are fixed, so a
second seed adds nothing."""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any

from gateway import product_queries
from libs.common.bootstrap import part_dsn
from libs.common.db import create_pool, cursor, transaction
from libs.common.errors import Conflict
from libs.contract.parts import ANALYTICS, GATEWAY, PERSONAS
from services.analytics import queries as answers
from services.analytics.analyser import run as analyse
from services.analytics.analyser import store
from services.analytics.brand_sets import brand_set
from services.personas import competitor_queries as competitors
from services.personas import prompt_queries as prompts

BRAND = {"name": "Demo Product", "aliases": ["DemoProduct", "Demo Analytics"], "domains": ["demo.example.com"]}
COMPETITORS: list[dict[str, Any]] = [
    {"name": "Globex Analytics", "aliases": ["Globex"], "domains": ["globex.example"]},
    {"name": "Initech Insights", "aliases": ["Initech"], "domains": ["initech.example"]},
]
PROMPTS = [
    "What is the best product analytics tool for a startup?",
    "Which funnel reporting tools are easiest to set up?",
    "Compare Globex Analytics and Demo Product",
]
ENGINES = [("openai-search", "gpt-4.1-mini"), ("perplexity-sonar", "sonar"), ("anthropic-web", "claude-sonnet-4-6")]
TEXTS = [
    "Here are the strongest options:\n\n1. **Demo Product**: fast to set up, clear funnels.\n2. **Globex**: powerful,"
    " but pricey.\n3. **Initech Insights**: solid for enterprises.\n\nSee https://demo.example.com/pricing.",
    "Most teams pick Globex Analytics for depth. Demo Product is a lighter alternative that is easy to love;"
    " Initech is slower to adopt. Sources: https://globex.example/features, https://reviews.example.org/analytics",
    "| Tool | Setup | Price |\n|---|---|---|\n| Initech Insights | weeks | $$$ |\n| Demo Analytics | minutes | $ |\n"
    "\nFor a small team, DemoProduct wins on setup time.",
    "Globex Analytics leads this category, with Initech close behind. Both are excellent for large data teams.",
]


def _pool(admin: str, part: Any) -> Any:
    return create_pool(part_dsn(admin, part), part.schema, 1, 2)


async def seed_answers(admin: str, organization_id: str, product_id: str) -> None:
    async with _pool(admin, GATEWAY) as pool, cursor(pool) as cur:
        row = await product_queries.update_product_brand(cur, organization_id, product_id, dict(BRAND))
    assert row is not None
    async with _pool(admin, PERSONAS) as pool:
        async with cursor(pool) as cur:  # each write on its own: a name already there is kept
            for competitor in COMPETITORS:
                with suppress(Conflict):
                    await competitors.create(cur, organization_id, product_id, competitor)
            for text in PROMPTS:
                with suppress(Conflict):
                    await prompts.create(cur, organization_id, product_id, _prompt(text))
        async with transaction(pool) as cur:
            found = brand_set({**BRAND}, await competitors.brand_set(cur, organization_id, product_id))
            tracked = {
                prompt["text"]: prompt for prompt in await prompts.live_of_product(cur, organization_id, product_id)
            }
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    async with _pool(admin, ANALYTICS) as pool, transaction(pool) as cur:
        for day in range(14):
            for index, (engine, model) in enumerate(ENGINES):
                prompt = tracked.get(PROMPTS[(day + index) % len(PROMPTS)])
                if prompt is None:  # archived since
                    continue
                values = _answer(organization_id, product_id, prompt, engine, model, day, index, now)
                stored = await answers.insert_answer(cur, values)
                if stored is not None:
                    await store(
                        cur,
                        {**stored, "organization_id": organization_id, "product_id": product_id},
                        found,
                        analyse(stored, found),
                    )


def _prompt(text: str) -> dict[str, Any]:
    return {
        "text": text,
        "topic_id": None,
        "persona_id": None,
        "tags": ["demo"],
        "engines": [],
        "cadence": "daily",
        "samples": 1,
        "status": "active",
    }


def _answer(
    organization_id: str,
    product_id: str,
    prompt: dict[str, Any],
    engine: str,
    model: str,
    day: int,
    index: int,
    now: datetime,
) -> dict[str, Any]:
    text = TEXTS[(day * 3 + index) % len(TEXTS)]
    return {
        "organization_id": organization_id,
        "product_id": product_id,
        "external_id": f"demo-{day}-{engine}",
        "body_sha256": b"demo",
        "source": "ingested",
        "run_id": None,
        "prompt_id": prompt["id"],
        "prompt_version": prompt["version"],
        "prompt_text": prompt["text"],
        "topic_id": prompt["topicId"],
        "engine": engine,
        "model": model,
        "status": "completed",
        "text": text,
        "citations": [{"url": url, "title": None} for url in ("https://demo.example.com/pricing",) if url in text],
        "sources": [{"url": "https://reviews.example.org/analytics", "title": "Analytics reviews"}],
        "input_tokens": 40 + day,
        "output_tokens": 180 + 7 * index,
        "cost_usd": 0.0021,
        "answered_at": now - timedelta(days=day, hours=index),
    }
