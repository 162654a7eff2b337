"""The demo's agent simulations: tasks over the demo App's published pages, an environment each,
and their runs queued once. The part's workers run them when it starts, so the demo shows real
runs: two tasks whose runs pass, and one that fails because the App publishes no refund policy
(its run page says so, criterion by criterion)."""

from __future__ import annotations

import uuid
from typing import Any

from libs.common.db import fetch_value
from services.simulations import queue, task_queries
from services.simulations.assignments import assignment_for
from services.simulations.task_schemas import AgentConfig

NAMESPACE = uuid.UUID("5f0b7c1e-8a43-4d6e-9a77-3c2f1b0d9e21")


def _id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, name))


# (task, environment name, trials), each task's criteria in the API's shape.
DEMO: list[tuple[dict[str, Any], str, int]] = [
    (
        {
            "id": _id("task:price"),
            "name": "Find the monthly price",
            "category": "pricing",
            "goal": "How much does the Demo Product cost per month?",
            "reference_answer": "$29 per month",
            "criteria": [
                {"type": "must_include", "value": "$29", "required": True, "weight": 1.0},
                {"type": "page_reached", "value": "/pricing", "required": True, "weight": 1.0},
                {"type": "url_visited", "value": "/llms.txt", "required": False, "weight": 1.0},
            ],
        },
        "BM25 reader",
        3,
    ),
    (
        {
            "id": _id("task:auth"),
            "name": "Learn how to authenticate",
            "category": "docs",
            "goal": "How do I authenticate requests to the API?",
            "reference_answer": "Send an x-api-key header.",
            "criteria": [
                {"type": "must_include", "value": "x-api-key", "required": True, "weight": 1.0},
                {"type": "page_reached", "value": "/docs/api/authentication", "required": True, "weight": 1.0},
            ],
        },
        "BM25 reader",
        1,
    ),
    (
        {
            "id": _id("task:refunds"),
            "name": "Find the refund policy",
            "category": "support",
            "goal": "What is the refund policy?",
            "reference_answer": "Refunds within 30 days.",
            "criteria": [
                {"type": "must_include", "value": "refund", "required": True, "weight": 1.0},
                {"type": "page_reached", "value": "/refunds", "required": True, "weight": 1.0},
            ],
        },
        "BM25 reader",
        1,
    ),
]


async def seed_simulations(cur: Any, organization_id: str, app_id: str) -> None:
    """Each demo task and its environment once, and its runs queued once."""
    for task, environment_name, trials in DEMO:
        environment_id = _id(f"environment:{task['id']}")
        if await fetch_value(cur, "SELECT 1 FROM tasks WHERE id = %s", (task["id"],)) is None:
            data = {"app_id": app_id, "step_budget": 8, "rerun_on_change": False, **task}
            await task_queries.create_task(cur, organization_id, data)
            config = AgentConfig().dump(AgentConfig().load({}))
            await task_queries.create_environment(
                cur,
                organization_id,
                {"id": environment_id, "task_id": task["id"], "name": environment_name, "agent_config": config},
            )
        if await fetch_value(cur, "SELECT 1 FROM runs WHERE environment_id = %s", (environment_id,)) is None:
            environment, assignment = await assignment_for(cur, organization_id, environment_id)
            await queue.enqueue(cur, organization_id, environment, assignment, trials, "api")
