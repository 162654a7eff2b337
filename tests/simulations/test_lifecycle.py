"""What happens around a run: re-runs on content changes, cancellation, its webhook, its steps by page."""

from __future__ import annotations

import asyncio
import time

from tests.events.conftest import Receiver, receivers, start_receiver  # noqa: F401
from tests.factories import ContentFactory, DomainFactory
from tests.integration.agent_site import new_site
from tests.integration.support import call
from tests.simulations import site as s

BASE = s.BASE


async def test_a_content_change_reruns_the_tasks_that_ask_for_it_on_the_apps_routing_it(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, documents = await s.product_site(gateway, headers, content, domains, org, product)
    watched = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"],
                                                                  rerunOnChange=True))["id"])  # fmt: skip
    unwatched = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    # Another App of the organization, watched too, routing only a page of its own.
    elsewhere = await new_site(gateway, headers, domains, product, name="Acme Blog")
    own = await content.document(org, product, title="Blog", status="published", content="# Blog\n\nNews.")
    await elsewhere.route(blog=own)
    other_app = await s.environment(gateway, headers, (await s.task(gateway, headers, elsewhere.app["id"],
                                                                    rerunOnChange=True))["id"])  # fmt: skip

    status, _ = await call(gateway, "PUT", f"/api/v1/content/{documents['security']['id']}", headers,
                           json={"content": "# Security\n\nSSO is in every plan."})  # fmt: skip
    assert status == 200
    deadline = time.monotonic() + 20
    while True:
        status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
        runs = listed["data"]["runs"]
        if runs:
            break
        assert time.monotonic() < deadline, "no re-run was queued"
        await asyncio.sleep(0.1)
    [rerun] = runs
    assert rerun["environmentId"] == watched["id"] and rerun["metadata"]["trigger"] == "content_change"
    assert rerun["sandboxId"] == app.app["id"]
    assert (await s.ended(gateway, headers, rerun["id"]))["passed"] is True
    for environment in (unwatched, other_app):
        status, others = await call(
            gateway, "GET", f"{BASE}/runs", headers, params={"environmentId": environment["id"]}
        )
        assert others["data"]["total"] == 0

    # The other App's page changes: its task runs again, the first App's does not.
    status, _ = await call(gateway, "PUT", f"/api/v1/content/{own['id']}", headers,
                           json={"content": "# Blog\n\nMore news."})  # fmt: skip
    assert status == 200
    while True:
        status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
        if listed["data"]["total"] > 1:
            break
        assert time.monotonic() < deadline + 20, "no re-run of the other App was queued"
        await asyncio.sleep(0.1)
    await asyncio.sleep(1)
    status, listed = await call(gateway, "GET", f"{BASE}/runs", headers)
    assert sorted(run["environmentId"] for run in listed["data"]["runs"]) == sorted([watched["id"], other_app["id"]])


async def test_an_ended_run_cannot_be_cancelled_and_its_steps_come_by_page(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    environment = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    run = await s.ended(gateway, headers, (await s.run(gateway, headers, environment["id"]))[0]["id"])

    status, answer = await call(gateway, "POST", f"{BASE}/runs/{run['id']}/cancel", headers)
    assert (status, answer["message"]) == (409, "the run has already ended (completed)")
    every = await s.steps(gateway, headers, run["id"])
    paged, cursor = [], None
    while True:
        params = {"limit": "4", **({"cursor": cursor} if cursor else {})}
        status, page = await call(gateway, "GET", f"{BASE}/runs/{run['id']}/steps", headers, params=params)
        assert status == 200
        paged += page["data"]["items"]
        cursor = page["data"]["nextCursor"]
        if cursor is None:
            break
    assert paged == every and len(every) > 4


async def test_a_completed_run_is_delivered_to_webhooks_with_its_score(
    gateway,
    tenant,
    content: ContentFactory,
    receivers: list[Receiver],  # noqa: F811
    domains: DomainFactory,
):
    org, product, headers = tenant
    receiver = await start_receiver(receivers)
    status, endpoint = await call(gateway, "POST", "/api/v1/webhook-endpoints", headers,
                                  json={"url": receiver.url, "events": ["simulation.run.completed"]})  # fmt: skip
    assert status == 201, endpoint
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    environment = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    run = await s.ended(gateway, headers, (await s.run(gateway, headers, environment["id"]))[0]["id"])

    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["data"]["secret"])
    assert payload["type"] == "simulation.run.completed"
    assert payload["data"] == run and payload["data"]["overallScore"] == 1.0


async def test_the_run_list_filters_by_creation_time_and_outcome(
    gateway, tenant, content: ContentFactory, domains: DomainFactory
):
    org, product, headers = tenant
    app, _ = await s.product_site(gateway, headers, content, domains, org, product)
    environment = await s.environment(gateway, headers, (await s.task(gateway, headers, app.app["id"]))["id"])
    [run] = await s.run(gateway, headers, environment["id"])
    run = await s.ended(gateway, headers, run["id"])
    created = run["createdAt"]
    for params, total in (({"from": created}, 1), ({"to": created}, 0), ({"passed": "true"}, 1),
                          ({"passed": "false"}, 0), ({"status": "completed", "taskId": run["taskId"]}, 1)):  # fmt: skip
        status, listed = await call(gateway, "GET", f"{BASE}/runs", headers, params=params)
        assert status == 200 and listed["data"]["total"] == total, params
    status, refused = await call(gateway, "GET", f"{BASE}/runs", headers, params={"from": "yesterday"})
    assert (status, list(refused["details"])) == (422, ["from"])
