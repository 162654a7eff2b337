"""A small product site published for agents, and the calls that set up and wait for runs."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from libs.common.db import cursor, fetch_one
from libs.common.events import webhook_events_stream
from libs.common.redis_client import create_redis
from libs.contract.parts import APPS
from services.simulations.reruns import GROUP
from tests.conftest import REDIS_URL, Stack
from tests.factories import ContentFactory, DomainFactory, Org
from tests.integration.agent_site import Site, new_site
from tests.integration.support import call

BASE = "/api/v1/agent-simulation"

PRICING = """# Pricing

Acme Docs has three plans.

## Starter

The Starter plan costs $19 per month for one site.

## Team

The Team plan costs $49 per month and adds five editors.

## Enterprise

Enterprise pricing is agreed with sales.
"""
SECURITY = """# Security

Single sign-on (SSO) is included in the Team plan.

Data is not shared with third parties.
"""
CHANGELOG = """# Changelog

Version 4 added dark mode and faster exports.
"""


async def product_site(
    gateway: Any,
    headers: dict[str, str],
    content: ContentFactory,
    domains: DomainFactory,
    org: Org,
    product: dict[str, Any],
) -> tuple[Site, dict[str, dict[str, Any]]]:
    """An App routing /pricing, /security and /changelog to published documents."""
    documents = {
        "pricing": await content.document(
            org,
            product,
            title="Pricing",
            status="published",
            priority=80,
            description="Plans and prices",
            content=PRICING,
        ),
        "security": await content.document(
            org,
            product,
            title="Security",
            status="published",
            priority=60,
            description="SSO and data handling",
            content=SECURITY,
        ),
        "changelog": await content.document(
            org, product, title="Changelog", status="published", priority=10, content=CHANGELOG
        ),
    }
    site = await new_site(gateway, headers, domains, product, description="Docs for Acme.")
    await site.route(**documents)
    return site, documents


async def app_events_read(stack: Stack, domains: DomainFactory, org: Org, timeout: float = 20.0) -> None:
    """Wait until the simulations part has read every App event of the organization recorded so
    far (the routes of a site just set up), so that a re-run task created next is not re-run for them."""
    stream = webhook_events_stream(stack.environ["REDIS_PREFIX"], APPS.name)
    redis = create_redis(REDIS_URL)
    deadline = time.monotonic() + timeout
    try:
        while True:
            async with cursor(domains.pool) as cur:
                outbox = await fetch_one(
                    cur,
                    "SELECT count(*) FILTER (WHERE published_at IS NULL) AS unpublished,"
                    " max(position) AS last FROM webhook_outbox WHERE organization_id = %s",
                    (org.id,),
                )
            assert outbox is not None
            if outbox["unpublished"] == 0:
                if outbox["last"] is None:
                    return
                group = next(g for g in await redis.xinfo_groups(stream) if _text(g["name"]) == GROUP)
                delivered = int(_text(group["last-delivered-id"]).partition("-")[0])
                if delivered >= outbox["last"] and int(group["pending"]) == 0:
                    return
            assert time.monotonic() < deadline, "the simulations part has not read the App's events"
            await asyncio.sleep(0.05)
    finally:
        await redis.aclose()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def task(gateway: Any, headers: dict[str, str], app_id: str, **fields: Any) -> dict[str, Any]:
    body = {
        "name": "Find the Team price",
        "category": "pricing",
        "goal": "How much does the Team plan cost?",
        "appId": app_id,
        "criteria": [{"type": "must_include", "value": "$49"}],
        **fields,
    }
    status, answer = await call(gateway, "POST", f"{BASE}/tasks", headers, json=body)
    assert status == 201, answer
    created: dict[str, Any] = answer["data"]
    return created


async def environment(gateway: Any, headers: dict[str, str], task_id: str, **config: Any) -> dict[str, Any]:
    body = {"name": "BM25 agent", "taskId": task_id, "agentConfig": config}
    status, answer = await call(gateway, "POST", f"{BASE}/environments", headers, json=body)
    assert status == 201, answer
    created: dict[str, Any] = answer["data"]
    return created


async def run(gateway: Any, headers: dict[str, str], environment_id: str, trials: int = 1) -> list[dict[str, Any]]:
    status, answer = await call(
        gateway, "POST", f"{BASE}/runs", headers, json={"environmentId": environment_id, "trials": trials}
    )
    assert status == 202, answer
    runs: list[dict[str, Any]] = answer["data"]["runs"]
    return runs


async def ended(gateway: Any, headers: dict[str, str], run_id: str, timeout: float = 20.0) -> dict[str, Any]:
    """The run once it has ended (completed, failed or cancelled)."""
    deadline = time.monotonic() + timeout
    while True:
        status, answer = await call(gateway, "GET", f"{BASE}/runs/{run_id}", headers)
        assert status == 200, answer
        if answer["data"]["status"] in ("completed", "failed", "cancelled"):
            return dict(answer["data"])
        assert time.monotonic() < deadline, f"run still {answer['data']['status']}"
        await asyncio.sleep(0.05)


async def queued_runs(gateway: Any, headers: dict[str, str], count: int, timeout: float = 20.0) -> list[dict[str, Any]]:
    """The organization's runs, once there are at least `count`, newest first."""
    deadline = time.monotonic() + timeout
    while True:
        status, answer = await call(gateway, "GET", f"{BASE}/runs", headers)
        assert status == 200, answer
        if answer["data"]["total"] >= count:
            runs: list[dict[str, Any]] = answer["data"]["runs"]
            return runs
        assert time.monotonic() < deadline, f"{answer['data']['total']} of {count} runs queued"
        await asyncio.sleep(0.1)


async def steps(gateway: Any, headers: dict[str, str], run_id: str) -> list[dict[str, Any]]:
    status, answer = await call(gateway, "GET", f"{BASE}/runs/{run_id}/steps", headers)
    assert status == 200, answer
    found: list[dict[str, Any]] = answer["data"]["items"]
    return found
