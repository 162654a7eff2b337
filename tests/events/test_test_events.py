"""`POST /api/v1/webhook-endpoints/{id}/test` with a `type`: an example event of any catalog type,
sent to that endpoint alone, signed, its `data` of the type's declared shape; no body: a `ping`."""

from __future__ import annotations

from services.events.catalog import BY_TYPE
from tests.events.conftest import Receiver, Tenant, start_receiver


async def test_a_test_event_of_each_type_is_an_example_of_its_declared_shape(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    # Subscribed to one type only: a test event goes to the endpoint whatever it receives.
    endpoint = await tenant.endpoint(receiver.url, ["api_key.created"])
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/test"
    for event_type in BY_TYPE:
        status, answer = await tenant.call("POST", path, json={"type": event_type})
        assert status == 202, answer
        assert answer["data"]["delivery"]["eventType"] == event_type
        assert answer["data"]["delivery"]["status"] == "pending"
    await receiver.deliveries(len(BY_TYPE))
    payloads = [receiver.verified(endpoint["secret"], index) for index in range(len(BY_TYPE))]
    assert sorted(payload["type"] for payload in payloads) == sorted(BY_TYPE)
    assert {payload["organizationId"] for payload in payloads} == {tenant.org.id}
    assert len({payload["id"] for payload in payloads}) == len(BY_TYPE)


async def test_no_type_is_a_ping_and_an_unknown_type_is_refused(tenant: Tenant, receivers: list[Receiver]):
    receiver = await start_receiver(receivers)
    endpoint = await tenant.endpoint(receiver.url)
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/test"
    status, answer = await tenant.call("POST", path, json={"type": "app.exploded"})
    assert status == 422, answer
    assert "type" in answer["details"]
    status, answer = await tenant.call("POST", path, json={})
    assert status == 202 and answer["data"]["delivery"]["eventType"] == "ping"
    status, answer = await tenant.call("POST", path)
    assert status == 202 and answer["data"]["delivery"]["eventType"] == "ping"
    await receiver.deliveries(2)
    pings = [receiver.verified(endpoint["secret"], index) for index in range(2)]
    assert [ping["data"] for ping in pings] == [{"endpointId": endpoint["id"]}] * 2
    path = f"/api/v1/webhook-endpoints/{endpoint['id']}/deliveries"
    status, answer = await tenant.call("GET", path)
    assert status == 200 and [item["eventType"] for item in answer["data"]["deliveries"]] == ["ping", "ping"]
