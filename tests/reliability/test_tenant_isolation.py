"""Tenant isolation, generated from the route table: a caller of organization B, holding every
scope, names organization A's ids in path, query and body of every route, and never meets A's
data: the answer is the one a random id gets."""

from __future__ import annotations

import uuid

import pytest

from tests.factories import AppsProducts, IdentityFactory, SimulationFactory
from tests.reliability.routes import documented_routes, names_ids, request_for, route_id

pytestmark = pytest.mark.slow


async def call(gateway, route, key: str, ids: dict[str, str]):
    path, query, body = request_for(route, ids)
    response = await gateway.request(route.method, path, params=query, json=body, headers={"x-api-key": key})
    return response.status, await response.text()


async def organization_a(
    gateway, identity: IdentityFactory, simulations: SimulationFactory, apps_products: AppsProducts, marker: str
) -> dict:
    """An organization with one of everything, each named with `marker`; its ids by kind."""
    org = await identity.organization()
    product = await identity.product(org, marker)
    await apps_products.until_known(product)  # apps learns of products from identity's events
    headers = {"x-api-key": await identity.api_key(org)}

    async def post(path: str, body: dict, status: int = 201) -> dict:
        response = await gateway.post(path, json=body, headers=headers)
        assert response.status == status, await response.text()
        return (await response.json())["data"]

    page = {"slug": "isolation-secret", "title": marker, "content": marker}
    document = (await post("/api/v1/site/pages", {"productId": product["id"], "pages": [page]}, 200))["created"][0]
    app = await post("/api/v1/apps", {"name": marker, "metadata": {"secret": marker}})
    domain = await post(f"/api/v1/apps/{app['id']}/domains", {"domain": f"{marker}.example.com"})
    resource = await post(f"/api/v1/apps/{app['id']}/resources", {"resourceId": product["id"]})
    item = {"path": f"/{marker}", "targetId": document["id"], "targetType": "product_document"}
    route = (await post(f"/api/v1/apps/{app['id']}/routes/batch", {"routes": [item]}, 200))["routes"][0]
    persona = await post(f"/api/v1/products/{product['id']}/personas", {"name": marker, "description": marker})
    await post(f"/api/v1/products/{product['id']}/topics", {"name": marker})
    suggestions = await post("/api/v1/prompt-suggestions/regenerate", {"productId": product["id"]}, 200)
    environment = await simulations.environment(org, marker)
    run = await simulations.run(org, environment, metadata={"secret": marker})
    hook = {"url": f"http://127.0.0.1:9/{marker}", "events": ["*"], "description": marker}
    endpoint = await post("/api/v1/webhook-endpoints", hook)
    delivery = (await post(f"/api/v1/webhook-endpoints/{endpoint['id']}/test", {}, 202))["delivery"]
    await gateway.patch(f"/api/v1/products/{product['id']}", json={"brand": {"aliases": [marker]}}, headers=headers)
    competitor = await post(f"/api/v1/products/{product['id']}/competitors", {"name": marker})
    prompt = await post(f"/api/v1/products/{product['id']}/prompts", {"text": marker})
    answer = await post(
        "/api/v1/answers",
        {
            "id": marker,
            "productId": product["id"],
            "promptId": prompt["id"],
            "engine": "probe",
            "model": marker,
            "text": f"{marker} is named here.",
            "answeredAt": "2026-11-20T00:00:00Z",
        },
    )
    return {
        "organization": org.id,
        "product": product["id"],
        "document": document["id"],
        "app": app["id"],
        "domain": domain["id"],
        "resource": resource["id"],
        "route": route["id"],
        "persona": persona["id"],
        "suggestion": suggestions["ids"][0],
        "run": run["id"],
        "task": environment["task"]["id"],
        "environment": environment["id"],
        "endpoint": endpoint["id"],
        "delivery": delivery["id"],
        "competitor": competitor["id"],
        "prompt": prompt["id"],
        "answer": answer["id"],
    }


async def test_no_route_shows_another_organizations_data(
    gateway, identity: IdentityFactory, simulations, apps_products: AppsProducts
):
    marker = f"secret{uuid.uuid4().hex[:10]}"
    ids_a = await organization_a(gateway, identity, simulations, apps_products, marker)
    org_b = await identity.organization()
    key_b = await identity.api_key(org_b)
    leaks, differences, requests = [], [], 0
    for route in documented_routes():
        random_ids = {kind: str(uuid.uuid4()) for kind in ids_a}
        status_a, text_a = await call(gateway, route, key_b, ids_a)
        status_r, text_r = await call(gateway, route, key_b, random_ids)
        requests += 2
        # B's audit trail lists the requests B made, A's ids in their paths included: B's own data.
        own_trail = route.path == "/api/v1/audit-events"
        if not own_trail and (marker in text_a or any(value in text_a for value in ids_a.values())):
            leaks.append((route_id(route), status_a, text_a[:200]))
        if status_a >= 500:
            leaks.append((route_id(route), status_a, text_a[:200]))
        if names_ids(route):
            normalized_a = text_a
            for kind, value in ids_a.items():
                normalized_a = normalized_a.replace(value, f"<{kind}>")
            normalized_r = text_r
            for kind, value in random_ids.items():
                normalized_r = normalized_r.replace(value, f"<{kind}>")
            if (status_a, normalized_a) != (status_r, normalized_r):
                differences.append((route_id(route), status_a, normalized_a[:200], status_r, normalized_r[:200]))
    assert requests >= 2 * len(documented_routes())
    assert leaks == []
    assert differences == []
