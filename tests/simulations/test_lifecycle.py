"""What happens around a run: cancellation, its webhook, its steps by page, the list's filters."""

from __future__ import annotations

from tests.events.conftest import Receiver, receivers, start_receiver  # noqa: F401
from tests.factories import ContentFactory, DomainFactory
from tests.integration.support import call
from tests.simulations import site as s

BASE = s.BASE


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
    status, endpoint = await call(
        gateway,
        "POST",
        "/api/v1/webhook-endpoints",
        headers,
        json={"url": receiver.url, "events": ["simulation.run.completed"]},
    )
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
    for params, total in (
        ({"from": created}, 1),
        ({"to": created}, 0),
        ({"passed": "true"}, 1),
        ({"passed": "false"}, 0),
        ({"status": "completed", "taskId": run["taskId"]}, 1),
    ):
        status, listed = await call(gateway, "GET", f"{BASE}/runs", headers, params=params)
        assert status == 200 and listed["data"]["total"] == total, params
    status, refused = await call(gateway, "GET", f"{BASE}/runs", headers, params={"from": "yesterday"})
    assert (status, list(refused["details"])) == (422, ["from"])
