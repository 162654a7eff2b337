"""Regenerating a product's prompt suggestions: one job per active topic, one transaction.

The product's advisory lock is taken first and held until the commit, so two regenerations of
one product run one after the other and the second starts from what the first stored. The jobs
run concurrently; only when every one of them succeeded are the pending suggestions replaced.
"""

from __future__ import annotations

import asyncio
import logging

import aiopg

from libs.common import webhook_outbox
from libs.common.db import transaction
from libs.common.errors import InternalError
from libs.common.internal_token import Product
from services.personas import queries
from services.personas.generator import (
    GeneratedPrompt,
    GenerationInput,
    PersonaBrief,
    SuggestionGenerator,
    TopicBrief,
)

log = logging.getLogger(__name__)

# A language-model provider must not be called for hundreds of topics at once, and a stuck call
# must not hold the product's lock for ever.
GENERATION_CONCURRENCY = 8
JOB_TIMEOUT_SECONDS = 20.0


class JobFailed(Exception):
    def __init__(self, topic: TopicBrief) -> None:
        super().__init__(f"generation failed for topic {topic.id}")
        self.topic = topic


def _leaves(group: BaseExceptionGroup[JobFailed]) -> list[JobFailed]:
    """The failures of a group, however nested."""
    found: list[JobFailed] = []
    for failure in group.exceptions:
        found.extend(_leaves(failure) if isinstance(failure, BaseExceptionGroup) else [failure])
    return found


async def generate_all(
    generator: SuggestionGenerator, product: Product, topics: list[TopicBrief], personas: tuple[PersonaBrief, ...]
) -> list[tuple[TopicBrief, list[GeneratedPrompt]]]:
    """Every topic's prompts; the first failure cancels the other jobs and raises a 500."""
    slots = asyncio.Semaphore(GENERATION_CONCURRENCY)

    async def job(topic: TopicBrief) -> list[GeneratedPrompt]:
        async with slots:
            try:
                async with asyncio.timeout(JOB_TIMEOUT_SECONDS):
                    return await generator.generate(GenerationInput(product, topic, personas))
            except Exception as exc:
                raise JobFailed(topic) from exc

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(job(topic)) for topic in topics]
    except* JobFailed as failures:
        topic_ids = []
        for failure in _leaves(failures):
            log.error("%s", failure, exc_info=failure.__cause__)
            topic_ids.append(failure.topic.id)
        raise InternalError(
            "generating suggestions failed; the previous suggestions are unchanged", details={"topicIds": topic_ids}
        ) from None
    return [(topic, task.result()) for topic, task in zip(topics, tasks, strict=True)]


async def regenerate(
    pool: aiopg.Pool, generator: SuggestionGenerator, organization_id: str, product: Product
) -> list[str]:
    """Replace the product's pending suggestions with freshly generated ones; returns their ids."""
    async with transaction(pool) as cur:
        await queries.lock_product_suggestions(cur, product.id)
        topics = [TopicBrief(**row) for row in await queries.active_topics(cur, organization_id, product.id)]
        personas = tuple(PersonaBrief(**row) for row in await queries.active_personas(cur, organization_id, product.id))
        generated = await generate_all(generator, product, topics, personas)
        await queries.retire_pending_suggestions(cur, organization_id, product.id)
        rows = [(topic.id, item.persona_id, item.prompt) for topic, prompts in generated for item in prompts]
        ids = await queries.insert_suggestions(cur, organization_id, product.id, rows)
        await webhook_outbox.record(
            cur,
            "prompt_suggestions.regenerated",
            organization_id,
            f"product:{product.id}",
            {"productId": product.id, "count": len(ids), "ids": ids},
        )
        return ids
