"""A page an answer cites on a verified domain of one of the organization's Apps is linked to the App
route that serves its path; no other page is."""

from __future__ import annotations

from typing import Any

from tests.analytics.conftest import Collector
from tests.factories import AppsProducts, ContentFactory, DomainFactory, eventually, unique
from tests.integration.support import item
from tests.personas.conftest import Tenant


async def app_site(
    tenant: Tenant, apps_products: AppsProducts, content: ContentFactory, domains: DomainFactory, *paths: str
) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """An App of the tenant's product on a verified domain, routing each of `paths` to a published page:
    the app, its hostname and its routes."""
    await apps_products.until_known(tenant.product)
    status, answer = await tenant.call("POST", "/api/v1/apps", json={"name": "Docs"})
    assert status == 201, answer
    app = answer["data"]
    status, answer = await tenant.call(
        "POST", f"/api/v1/apps/{app['id']}/resources", json={"resourceId": tenant.product["id"]}
    )
    assert status == 201, answer
    hostname = f"{unique('docs')}.acme.dev"
    await domains.create(tenant.org, hostname, app["id"])
    items = []
    for path in paths:
        page = await content.document(tenant.org, tenant.product, title=path, status="published")
        items.append(item(path, page))
    status, answer = await tenant.call("POST", f"/api/v1/apps/{app['id']}/routes/batch", json={"routes": items})
    assert status == 200, answer
    return app, hostname, answer["data"]["routes"]


async def test_a_cited_page_of_an_app_domain_is_linked_to_the_route_serving_its_path(
    collector: Collector,
    stranger: Collector,
    apps_products: AppsProducts,
    content: ContentFactory,
    domains: DomainFactory,
):
    app, host, (pricing, guide) = await app_site(
        collector.tenant, apps_products, content, domains, "/pricing", "/docs/guide"
    )
    _, foreign, _ = await app_site(stranger.tenant, apps_products, content, domains, "/pricing")
    claimed = f"{unique('claim')}.acme.dev"  # claimed by the organization, never proven
    status, answer = await collector.tenant.call("POST", f"/api/v1/apps/{app['id']}/domains", json={"domain": claimed})
    assert status == 201 and answer["data"]["verified"] is False
    cited = [
        f"https://{host}/pricing?utm_source=chatgpt",
        f"https://{host}/docs/guide/",
        f"https://{host}/unrouted",
        f"https://{foreign}/pricing",
        f"https://{claimed}/pricing",
    ]

    sent = await collector.send(
        "Acme publishes its prices.", citations=[{"url": url} for url in cited], sources=[{"url": cited[1]}]
    )
    analysed = await collector.analysed(sent["id"])

    links = {citation["url"]: citation["appRoute"] for citation in analysed["analysis"]["citations"]}
    assert links == {
        f"https://{host}/pricing": {
            "appId": app["id"],
            "routeId": pricing["id"],
            "path": "/pricing",
            "href": f"/api/v1/apps/{app['id']}/routes/{pricing['id']}",
        },
        f"https://{host}/docs/guide": {
            "appId": app["id"],
            "routeId": guide["id"],
            "path": "/docs/guide",
            "href": f"/api/v1/apps/{app['id']}/routes/{guide['id']}",
        },
        f"https://{host}/unrouted": None,
        f"https://{foreign}/pricing": None,
        f"https://{claimed}/pricing": None,
    }
    status, route = await collector.tenant.call("GET", links[f"https://{host}/pricing"]["href"])
    assert status == 200 and route["data"]["path"] == "/pricing"


async def test_a_route_added_later_is_linked_once_the_answer_is_analysed_again(
    collector: Collector, apps_products: AppsProducts, content: ContentFactory, domains: DomainFactory
):
    app, host, _ = await app_site(collector.tenant, apps_products, content, domains, "/pricing")
    sent = await collector.send("Acme's changelog.", citations=[{"url": f"https://{host}/changelog"}])
    first = await collector.analysed(sent["id"])
    assert first["analysis"]["citations"][0]["appRoute"] is None
    page = await content.document(collector.tenant.org, collector.tenant.product, title="Changelog", status="published")
    status, answer = await collector.tenant.call(
        "POST", f"/api/v1/apps/{app['id']}/routes/batch", json={"routes": [item("/changelog", page)]}
    )
    assert status == 200, answer
    (route,) = answer["data"]["routes"]

    status, queued = await collector.tenant.call(
        "POST", "/api/v1/answers/reanalyse", json={"productId": collector.tenant.product["id"]}
    )
    assert (status, queued["data"]["queued"]) == (202, 1)

    async def again() -> bool:
        _, answer = await collector.tenant.call("GET", f"/api/v1/answers/{sent['id']}")
        return answer["data"]["analysis"]["id"] != first["analysis"]["id"]

    await eventually(again)
    _, answer = await collector.tenant.call("GET", f"/api/v1/answers/{sent['id']}")
    assert answer["data"]["analysis"]["citations"][0]["appRoute"]["routeId"] == route["id"]
