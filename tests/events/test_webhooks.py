"""Webhook endpoints and signed deliveries, through the gateway; signatures checked with the
standardwebhooks package."""

from __future__ import annotations

import uuid

import pytest

from gateway.identity.auth.scopes import ALL_SCOPES
from services.events.attempts import RETRY_DELAYS_SECONDS
from tests.conftest import Stack
from tests.events.conftest import Receiver, Tenant, start_receiver
from tests.factories import IdentityFactory, eventually


async def create_page(tenant: Tenant, slug: str, status: str = "draft") -> str:
    body = {"productId": tenant.product["id"], "pages": [{"slug": slug, "title": "Launch", "status": status}]}
    code, answer = await tenant.call("POST", "/api/v1/site/pages", json=body)
    assert code == 201 or code == 200, answer
    page_id: str = answer["data"]["created"][0]["id"]
    return page_id


async def test_create_answers_the_endpoint_with_its_secret_once(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    created = await tenant.endpoint(receiver.url, ["content.document.created"])
    assert created["secret"].startswith("whsec_")
    assert created["events"] == ["content.document.created"]
    assert created["enabled"] is True
    status, listed = await tenant.call("GET", "/api/v1/webhook-endpoints")
    assert status == 200
    assert [item["id"] for item in listed["data"]["endpoints"]] == [created["id"]]
    assert "secret" not in listed["data"]["endpoints"][0]
    status, one = await tenant.call("GET", f"/api/v1/webhook-endpoints/{created['id']}")
    assert status == 200 and "secret" not in one["data"] and one["data"]["url"] == receiver.url


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://example.com/hook", "events": ["*"]}, "url"),
        ({"url": "http://10.0.0.7/hook", "events": ["*"]}, "url"),
        ({"url": "http://169.254.169.254/latest", "events": ["*"]}, "url"),
        ({"url": "https://example.com/hook", "events": ["content.nonsense"]}, "events.0"),
        ({"url": "https://example.com/hook", "events": []}, "events"),
        ({"events": ["*"]}, "url"),
    ],
)
async def test_create_refuses_bad_urls_and_events(tenant: Tenant, body: dict, field: str):
    status, answer = await tenant.call("POST", "/api/v1/webhook-endpoints", json=body)
    assert status == 422, answer
    assert field in answer["details"]


async def test_a_content_change_is_delivered_signed(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["content.document.created"])
    page_id = await create_page(tenant, "launch-day")
    await receiver.deliveries(1)
    payload = receiver.verified(endpoint["secret"])
    assert payload["type"] == "content.document.created"
    assert payload["organizationId"] == tenant.org.id
    assert payload["data"]["id"] == page_id
    assert payload["data"]["filePath"] == "/launch-day"
    assert receiver.received[-1].headers["webhook-id"] == payload["id"]
    status, page = await tenant.call("GET", f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries")
    assert status == 200
    delivery = page["data"]["deliveries"][0]

    async def recorded() -> bool:
        _, again = await tenant.call("GET", f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries")
        return again["data"]["deliveries"][0]["status"] == "succeeded"

    await eventually(recorded)
    _, page = await tenant.call("GET", f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries")
    delivery = page["data"]["deliveries"][0]
    assert delivery["eventType"] == "content.document.created"
    assert [attempt["statusCode"] for attempt in delivery["attempts"]] == [204]


async def test_only_subscribed_types_and_own_organization_are_delivered(
    stack: Stack, identity: IdentityFactory, tenant: Tenant, receivers: list[Receiver]
):
    mine = await start_receiver(receivers)
    theirs = await start_receiver(receivers)
    endpoint = await tenant.endpoint(mine.url, ["content.document.published"])
    other_org = await identity.organization()
    other = Tenant(other_org, await identity.api_key(other_org), stack.gateway, await identity.product(other_org))
    await other.endpoint(theirs.url, ["*"])
    page_id = await create_page(tenant, "draft-page")  # created: not subscribed
    body = {"productId": tenant.product["id"], "pages": [{"id": page_id, "status": "published"}]}
    status, answer = await tenant.call("PATCH", "/api/v1/site/pages", json=body)
    assert status == 200, answer
    await create_page(other, "their-page")
    await theirs.deliveries(1)
    await mine.deliveries(1)
    assert [mine.verified(endpoint["secret"], index)["type"] for index in range(len(mine.received))] == [
        "content.document.published"
    ]
    assert all(tenant.org.id.encode() not in received.body for received in theirs.received)


async def test_ping_rotation_signs_with_both_secrets(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url)
    status, rotated = await tenant.call("POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/rotate-secret")
    assert status == 200
    new_secret = rotated["data"]["secret"]
    assert new_secret != endpoint["secret"]
    status, answer = await tenant.call("POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    assert status == 202
    assert answer["data"]["delivery"]["eventType"] == "ping"
    await receiver.deliveries(1)
    assert receiver.verified(new_secret)["type"] == "ping"
    assert receiver.verified(endpoint["secret"])["type"] == "ping"  # the old one still signs, for 24 hours
    assert len(receiver.received[-1].headers["webhook-signature"].split(" ")) == 2


async def test_a_failing_receiver_is_retried_and_recorded(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers, status=500, answer=b"x" * 5000)
    endpoint = await tenant.endpoint(receiver.url)
    await tenant.call("POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    await receiver.deliveries(1)
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries"

    async def attempted(count: int) -> bool:
        _, page = await tenant.call("GET", path)
        return len(page["data"]["deliveries"][0]["attempts"]) >= count

    await eventually(lambda: attempted(1))
    _, page = await tenant.call("GET", path)
    delivery = page["data"]["deliveries"][0]
    assert delivery["status"] == "pending"
    attempt = delivery["attempts"][0]
    assert attempt["statusCode"] == 500
    assert attempt["response"] == "x" * 1024
    assert attempt["error"] == "answered 500"
    receiver.status = 200
    await receiver.deliveries(2, within=RETRY_DELAYS_SECONDS[0] + 10)  # the first retry comes after 5 s
    await eventually(lambda: attempted(2))
    _, page = await tenant.call("GET", path)
    assert page["data"]["deliveries"][0]["status"] == "succeeded"
    _, one = await tenant.call("GET", f"/api/v1/webhook-endpoints/{endpoint['id']}")
    assert one["data"]["failingSince"] is None


async def test_redirects_are_not_followed_and_retry_sends_again(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url.replace("/hook", "/moved"))
    await tenant.call("POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries"

    async def attempts() -> list:
        _, page = await tenant.call("GET", path)
        return page["data"]["deliveries"][0]["attempts"]

    await eventually(lambda: _nonempty(attempts()))
    assert (await attempts())[0]["statusCode"] == 302
    assert receiver.received == []  # the redirect's target was never called
    status, page = await tenant.call("PATCH", f"/api/v1/webhook-endpoints/{endpoint['id']}", json={"url": receiver.url})
    assert status == 200 and page["data"]["url"] == receiver.url
    _, listed = await tenant.call("GET", path)
    delivery_id = listed["data"]["deliveries"][0]["id"]
    status, retried = await tenant.call("POST", f"{path}/{delivery_id}/retry")
    assert status == 202 and retried["data"]["status"] == "pending"
    await receiver.deliveries(1)
    assert receiver.verified(endpoint["secret"])["type"] == "ping"


async def _nonempty(items) -> bool:
    return bool(await items)


async def test_another_organizations_endpoint_is_404(
    stack: Stack, identity: IdentityFactory, tenant: Tenant, receivers: list[Receiver]
):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url)
    other_org = await identity.organization()
    other_key = await identity.api_key(other_org)
    for method, suffix in [("GET", ""), ("PATCH", ""), ("DELETE", ""), ("POST", "/test"), ("GET", "/deliveries")]:
        kwargs = {"json": {"enabled": False}} if method == "PATCH" else {}
        status, _ = await tenant.call(
            method, f"/api/v1/webhook-endpoints/{endpoint['id']}{suffix}", key=other_key, **kwargs
        )
        assert status == 404, (method, suffix)
    status, _ = await tenant.call("GET", f"/api/v1/webhook-endpoints/{uuid.uuid4()}")
    assert status == 404


async def test_scopes_are_required(identity: IdentityFactory, tenant: Tenant):
    reader = await identity.api_key(tenant.org, frozenset({"webhooks:read"}))
    status, answer = await tenant.call(
        "POST", "/api/v1/webhook-endpoints", key=reader, json={"url": "https://example.com/h", "events": ["*"]}
    )
    assert status == 403 and answer["details"] == {"requiredScope": "webhooks:write"}
    nothing = await identity.api_key(tenant.org, ALL_SCOPES - {"webhooks:read"})
    status, _ = await tenant.call("GET", "/api/v1/webhook-endpoints", key=nothing)
    assert status == 403


async def test_a_deleted_endpoint_gets_nothing_more(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url, ["content.document.created"])
    status, deleted = await tenant.call("DELETE", f"/api/v1/webhook-endpoints/{endpoint['id']}")
    assert status == 200 and deleted["data"]["enabled"] is False
    await create_page(tenant, "after-delete")
    status, _ = await tenant.call("GET", f"/api/v1/webhook-endpoints/{endpoint['id']}")
    assert status == 404
    second = await start_receiver(receivers)
    await tenant.endpoint(second.url, ["content.document.created"])
    await create_page(tenant, "after-second")
    await second.deliveries(1)
    assert receiver.received == []


async def test_a_hanging_receiver_does_not_hold_up_another(tenant: Tenant, receivers: list[Receiver]):
    """More deliveries to a receiver that never answers than a worker sends at once: the other
    receiver's delivery goes out while they hang, and at most 8 hang at a time."""
    hanging = await start_receiver(receivers, hold=True)
    fast = await start_receiver(receivers)
    stuck = await tenant.endpoint(hanging.url)
    for _ in range(70):
        status, _ = await tenant.call("POST", f"/api/v1/webhook-endpoints/{stuck['id']}/test")
        assert status == 202
    await hanging.deliveries(8)
    endpoint = await tenant.endpoint(fast.url)
    await tenant.call("POST", f"/api/v1/webhook-endpoints/{endpoint['id']}/test")
    await fast.deliveries(1, within=8.0)  # well inside the hanging ones' 10 s timeout
    # Before the first of them times out (10 s), no ninth is sent; later ones are retries and
    # new deliveries taking the places the timed-out ones left.
    first = hanging.received[0].at
    assert len([each for each in hanging.received if each.at < first + 9.0]) == 8
    _, page = await tenant.call("GET", f"/api/v1/webhook-endpoints/{stuck['id']}/deliveries?limit=200")
    assert all(delivery["attempts"] == [] for delivery in page["data"]["deliveries"])  # none answered yet
