"""Agent simulations: how long a run takes and how many runs a worker does a second.

Load: an App of 20 published pages (a pricing page among 19 others), routed on a web domain;
one task the agent answers from the pricing page, one no page answers (its agent reads all 20).
The simulations part runs as `make run` runs it: one gunicorn worker, taking
SIMULATION_WORKER_CONCURRENCY runs at once.

Measured, each run's own `duration` (taken to judged, as the part records it):
- a run that reads all 20 pages (p50, p99), and one that answers from the first page it reads;
- runs a second per worker: RUNS runs queued at once, from the first queued to the last ended;
- the reference, in the same run: GET llms.txt through the gateway, one of the ~25 reads a run makes.

    python -m deploy.stack exec -- python -m bench.simulations
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import aiohttp

from bench.apps_setup import organization_with_app, verified_domain
from bench.common import Request, bench_stack, load_average, measure, report, say
from libs.contract.parts import APPS, CONTENT, GATEWAY, SIMULATIONS

PAGES = 20
RUNS = 100
TRIALS = 20  # the most one request queues
CONCURRENCY = "4"
BASE = "/api/v1/agent-simulation"
TOPICS = (
    "Install",
    "Sign in",
    "Export",
    "Import",
    "Webhooks",
    "Teams",
    "Roles",
    "Billing",
    "Invoices",
    "Audit",
    "Search",
    "Themes",
    "Domains",
    "Analytics",
    "Backups",
    "Limits",
    "Support",
    "Security",
    "Changelog",
)


def page_text(topic: str) -> str:
    paragraphs = "\n\n".join(
        f"{topic} step {index}: open the {topic.lower()} settings, choose what you need and save it. "
        f"Every change to {topic.lower()} is kept in the history for ninety days."
        for index in range(1, 13)
    )
    return f"# {topic}\n\n{paragraphs}\n"


async def call(session: aiohttp.ClientSession, method: str, url: str, body: Any = None) -> Any:
    async with session.request(method, url, json=body) as response:
        answer = await response.json()
        if response.status >= 300:
            raise SystemExit(f"{method} {url} answered {response.status}: {answer}")
        return answer["data"]


async def setup(gateway: str, key: str, product_id: str, app_id: str) -> tuple[str, str]:
    """The App's pages and routes; an environment answered at once and one reading every page."""
    pages = [
        {
            "slug": "pricing",
            "title": "Pricing",
            "status": "published",
            "description": "Plans and prices",
            "content": "# Pricing\n\nThe Team plan costs $49 per month.\n",
        }
    ]
    pages += [
        {"slug": topic.lower().replace(" ", "-"), "title": topic, "status": "published", "content": page_text(topic)}
        for topic in TOPICS
    ]
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        created = await call(session, "POST", f"{gateway}/api/v1/site/pages", {"productId": product_id, "pages": pages})
        app_url = f"{gateway}/api/v1/apps/{app_id}"
        routes = [
            {"path": f"/{page['slug']}", "targetId": page["id"], "targetType": "product_document"}
            for page in created["created"]
        ]
        await call(session, "POST", f"{app_url}/routes/batch", {"routes": routes})
        environments = []
        for goal, pages_read in (
            ("How much does the Team plan cost?", 3),
            ("What is the price of platinum support?", PAGES),
        ):
            task = await call(
                session,
                "POST",
                f"{gateway}{BASE}/tasks",
                {
                    "name": goal,
                    "category": "bench",
                    "goal": goal,
                    "appId": app_id,
                    "stepBudget": PAGES + 1,
                    "criteria": [{"type": "must_include", "value": "$49"}],
                },
            )
            environment = await call(
                session,
                "POST",
                f"{gateway}{BASE}/environments",
                {
                    "name": f"{pages_read} pages",
                    "taskId": task["id"],
                    "agentConfig": {"maxPages": pages_read, "maxSteps": PAGES + 1},
                },
            )
            environments.append(environment["id"])
    return environments[0], environments[1]


async def run_all(gateway: str, key: str, environment_id: str, count: int) -> tuple[list[dict[str, Any]], float]:
    """Queue `count` runs of the environment at once; every run once ended, and the seconds it all took."""
    async with aiohttp.ClientSession(headers={"x-api-key": key}) as session:
        started = time.perf_counter()
        queued: list[dict[str, Any]] = []
        for first in range(0, count, TRIALS):
            body = {"environmentId": environment_id, "trials": min(TRIALS, count - first)}
            queued += (await call(session, "POST", f"{gateway}{BASE}/runs", body))["runs"]
        query = f"environmentId={environment_id}&limit=200"
        while True:
            listed = await call(session, "GET", f"{gateway}{BASE}/runs?{query}")
            ended = [run for run in listed["runs"] if run["status"] in ("completed", "failed", "cancelled")]
            if len(ended) >= len(queued):
                return ended, time.perf_counter() - started
            await asyncio.sleep(0.05)


def durations(runs: list[dict[str, Any]]) -> str:
    taken = sorted(run["duration"] * 1000 for run in runs)
    failed = sum(run["status"] != "completed" for run in runs)
    return (
        f"p50 {statistics.median(taken):7.1f} ms   p99 {taken[int(len(taken) * 0.99) - 1]:7.1f} ms"
        f"   {failed} failed   {load_average()}"
    )


def main() -> None:
    environ = {
        "SIMULATION_WORKER_CONCURRENCY": CONCURRENCY,
        "SIMULATION_ORGANIZATION_CONCURRENCY": CONCURRENCY,
        "SIMULATION_POLL_MS": "20",
    }
    with bench_stack((GATEWAY, CONTENT, APPS, SIMULATIONS), environ) as stack:
        key, organization_id, product_id, app_id = asyncio.run(organization_with_app(stack))
        asyncio.run(verified_domain(stack, organization_id, app_id, "docs.bench.example.com"))
        gateway = stack.url("gateway")
        say(f"an App of {PAGES} pages and two environments ({load_average()})")
        answered, every_page = asyncio.run(setup(gateway, key, product_id, app_id))
        asyncio.run(run_all(gateway, key, answered, 5))  # warm-up: connections, the tokenizer
        reference = measure(
            [Request("GET", f"{gateway}/api/v1/apps/{app_id}/llms.txt", {"x-api-key": key})], count=200, warmup=20
        )
        reads, _ = asyncio.run(run_all(gateway, key, every_page, 40))
        quick, _ = asyncio.run(run_all(gateway, key, answered, 40))
        throughput_runs, seconds = asyncio.run(run_all(gateway, key, every_page, RUNS))
        pages_read = statistics.median(len(run["metadata"]["visited"]) - 1 for run in reads)
        report(
            f"Agent simulations over an App of {PAGES} pages; one simulations worker taking {CONCURRENCY} runs at once",
            [
                (
                    "reference: GET llms.txt",
                    f"p50 {reference.p50_ms:7.2f} ms   p99 {reference.p99_ms:7.2f} ms   {load_average()}",
                ),
                (f"a run reading {pages_read:g} pages (40 runs)", durations(reads)),
                ("a run answered from the first page (40 runs)", durations(quick)),
                (
                    f"{RUNS} runs of {pages_read:g} pages queued at once",
                    f"{len(throughput_runs) / seconds:6.1f} runs/s per worker   {seconds:6.2f} s   {load_average()}",
                ),
            ],
        )


if __name__ == "__main__":
    main()
