"""Runs through the gateway: queued, taken by the part's worker, run by the deterministic agent
over the App's published pages, judged, and their steps shown."""

from __future__ import annotations

from libs.common.db import create_pool
from libs.common.encoding import loads
from libs.common.object_store import PostgresObjectStore
from libs.contract.parts import SIMULATIONS
from tests.factories import ContentFactory, DomainFactory
from tests.simulations import site as s


async def test_a_run_finds_the_price_on_the_pricing_page_and_passes(
    gateway, tenant, content: ContentFactory, domains: DomainFactory, database
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    task = await s.task(
        gateway,
        headers,
        app.app["id"],
        criteria=[
            {"type": "must_include", "value": "$49"},
            {"type": "exact_match", "value": "$49 per month"},
            {"type": "page_reached", "value": "/pricing"},
            {"type": "url_visited", "value": "/llms.txt", "required": False, "weight": 2},
        ],
    )
    environment = await s.environment(gateway, headers, task["id"])

    [queued] = await s.run(gateway, headers, environment["id"])
    assert queued["status"] == "queued" and queued["sandboxId"] == app.app["id"]
    run = await s.ended(gateway, headers, queued["id"])

    assert run["status"] == "completed", run["metadata"]
    assert (run["passed"], run["overallScore"]) == (True, 1.0)
    assert run["metadata"]["answer"] == "$49 per month"
    assert run["metadata"]["answerPage"] == "/pricing"
    assert run["tokensUsed"] > 0 and run["costUsd"] == 0
    assert run["sandboxSnapshot"].startswith("b2-")
    assert run["startedAt"] is not None and run["completedAt"] >= run["startedAt"] and run["duration"] >= 0
    key = f"simulations/{org.id}/runs/{run['id']}/1/steps.jsonl"
    assert run["logS3Keys"] == {"store": "postgres:simulations.objects", "steps": key}
    assert [verdict["holds"] for verdict in run["metadata"]["criteria"]] == [True, True, True, True]

    trajectory = await s.steps(gateway, headers, run["id"])
    kinds = [(step["kind"], step["name"]) for step in trajectory]
    assert kinds[:4] == [("check", "llms_txt"), ("check", "sitemap"), ("check", "robots"), ("check", "markdown")]
    assert kinds[4:7] == [("fetch", "llms_txt"), ("rank", "bm25"), ("read", "Pricing")]
    assert ("answer", "price") in kinds and kinds[-4:] == [
        ("judge", "must_include"),
        ("judge", "exact_match"),
        ("judge", "page_reached"),
        ("judge", "url_visited"),
    ]
    read = trajectory[6]
    assert read["url"] == f"https://{app.domain}/pricing" and read["status"] == 200
    assert read["bytes"] == len(s.PRICING.encode()) and read["tokens"] > 20
    assert [step["seq"] for step in trajectory] == list(range(1, len(trajectory) + 1))

    # The step log is kept where logS3Keys says, and reads back as the steps the API shows.
    async with create_pool(database.dsn(SIMULATIONS), SIMULATIONS.schema, 1, 1) as pool:
        kept = await PostgresObjectStore(pool, SIMULATIONS.schema).get(key)
    assert kept is not None
    assert [loads(line) for line in kept.splitlines()] == [
        {name: value for name, value in step.items() if name != "createdAt"} for step in trajectory
    ]


def _trajectory(steps: list[dict]) -> list[tuple]:
    """What a run did, without when and how long."""
    return [
        (
            step["kind"],
            step["name"],
            step["url"],
            step["status"],
            step["bytes"],
            step["tokens"],
            step["ok"],
            {key: value for key, value in step["detail"].items() if key != "kept"},
        )
        for step in steps
    ]


async def test_a_run_is_reproduced_by_its_seed_and_content_and_moves_when_the_content_does(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, documents = await s.product_site(gateway, headers, content, domains, org, product)
    task = await s.task(gateway, headers, app.app["id"])
    environment = await s.environment(gateway, headers, task["id"], seed=7, temperature=1.5)
    first = await s.ended(gateway, headers, (await s.run(gateway, headers, environment["id"]))[0]["id"])
    again = await s.ended(gateway, headers, (await s.run(gateway, headers, environment["id"]))[0]["id"])

    assert (first["metadata"]["seed"], again["metadata"]["seed"]) == (7, 7)
    assert first["sandboxSnapshot"] == again["sandboxSnapshot"]
    assert (first["overallScore"], first["tokensUsed"]) == (again["overallScore"], again["tokensUsed"])
    assert _trajectory(await s.steps(gateway, headers, first["id"])) == _trajectory(
        await s.steps(gateway, headers, again["id"])
    )

    status, _ = await s.call(
        gateway,
        "PUT",
        f"/api/v1/content/{documents['pricing']['id']}",
        headers,
        json={"content": s.PRICING.replace("$49", "$59")},
    )
    assert status == 200
    changed = await s.ended(gateway, headers, (await s.run(gateway, headers, environment["id"]))[0]["id"])
    assert changed["sandboxSnapshot"] != first["sandboxSnapshot"]
    assert (changed["passed"], changed["metadata"]["answer"]) == (False, "$59 per month")
    [verdict] = changed["metadata"]["criteria"]
    assert verdict["why"] == "the answer does not include '$49'"


async def test_trials_get_consecutive_seeds_and_a_task_the_site_cannot_answer_fails_with_its_reason(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    task = await s.task(
        gateway,
        headers,
        app.app["id"],
        goal="Is there an on-premise edition?",
        criteria=[{"type": "page_reached", "value": "/on-premise"}],
    )
    environment = await s.environment(gateway, headers, task["id"], seed=100)
    queued = await s.run(gateway, headers, environment["id"], trials=3)
    assert [run["metadata"]["trial"] for run in queued] == [1, 2, 3]
    assert [run["metadata"]["seed"] for run in queued] == [100, 101, 102]

    runs = [await s.ended(gateway, headers, run["id"]) for run in queued]
    assert {(run["status"], run["passed"], run["overallScore"]) for run in runs} == {("completed", False, 0.0)}
    [verdict] = runs[0]["metadata"]["criteria"]
    assert verdict["holds"] is False and "/on-premise" in verdict["why"]
