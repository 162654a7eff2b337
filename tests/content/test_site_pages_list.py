"""GET /api/v1/site/pages: a product's pages, filtered, ordered and paged with exact totals."""

from __future__ import annotations

import pytest

from libs.common.db import transaction
from services.content.queries.site_pages import fold_counts
from tests.content.api import Tenant
from tests.factories import ContentFactory, DomainFactory


async def paths(tenant: Tenant, **params) -> list[str]:
    answer = await tenant.list_pages(pageSize=100, **params)
    assert answer.status == 200, answer.body
    return [item["filePath"] for item in answer.data["items"]]


async def test_items_have_the_contract_shape_and_the_query_is_echoed(tenant: Tenant, domains: DomainFactory):
    domain = await domains.create(tenant.org)
    created = await tenant.create_page("shape", metaTitle="M", domainIds=[domain["id"]], canonicalDomainId=domain["id"])
    stored = (await tenant.document(created["id"])).data
    answer = await tenant.list_pages()
    assert answer.data == {
        "scope": tenant.scope,
        "page": 1,
        "pageSize": 20,
        "query": None,
        "status": None,
        "type": None,
        "isManual": None,
        "pathPrefix": None,
        "hasContent": None,
        "domainId": None,
        "domain": None,
        "orderBy": "updatedAt",
        "orderByDirection": "desc",
        "total": 1,
        "totalPages": 1,
        "items": [
            {
                "id": created["id"],
                "title": "shape",
                "filePath": "/shape",
                "sourceUrl": f"https://{domain['domain']}/shape",
                "status": "draft",
                "type": "page",
                "isManual": True,
                "metaTitle": "M",
                "metaDescription": None,
                "publishedAt": None,
                "createdAt": stored["createdAt"],
                "updatedAt": stored["updatedAt"],
                "domains": [{"id": domain["id"], "domain": domain["domain"], "isCanonical": True}],
            }
        ],
    }


async def test_every_given_parameter_is_echoed(tenant: Tenant):
    params = {
        "page": "2",
        "pageSize": "5",
        "query": "q",
        "status": "published",
        "type": "doc",
        "isManual": "false",
        "pathPrefix": "/docs",
        "hasContent": "true",
        "domainId": "8d1f1c1e-2f3a-4b5c-9d6e-7f8091a2b3c4",
        "domain": "docs.example.com",
        "orderBy": "createdAt",
        "orderByDirection": "asc",
    }
    data = (await tenant.list_pages(**params)).data
    echoed = {name: data[name] for name in params}
    assert echoed == {**params, "page": 2, "pageSize": 5, "isManual": False, "hasContent": True}
    assert (data["total"], data["totalPages"], data["items"]) == (0, 0, [])


async def test_pages_and_totals_are_exact(tenant: Tenant):
    for index in range(7):
        await tenant.create_page(f"p{index}")
    pages = [
        (await tenant.list_pages(pageSize=3, page=page, orderBy="createdAt", orderByDirection="asc")).data
        for page in (1, 2, 3, 4)
    ]
    assert [(data["total"], data["totalPages"]) for data in pages] == [(7, 3)] * 4
    assert [[item["filePath"] for item in data["items"]] for data in pages] == [
        ["/p0", "/p1", "/p2"],
        ["/p3", "/p4", "/p5"],
        ["/p6"],
        [],
    ]


async def test_both_orderings_in_both_directions(tenant: Tenant):
    for slug in ("first", "second", "third"):
        await tenant.create_page(slug)
    first = (await tenant.list_pages(orderBy="createdAt", orderByDirection="asc")).data["items"][0]
    await tenant.update_pages({"id": first["id"], "title": "touched"})
    assert await paths(tenant, orderBy="createdAt", orderByDirection="asc") == ["/first", "/second", "/third"]
    assert await paths(tenant, orderBy="createdAt") == ["/third", "/second", "/first"]
    assert await paths(tenant) == ["/first", "/third", "/second"]
    assert await paths(tenant, orderByDirection="asc") == ["/second", "/third", "/first"]


async def test_status_filter(tenant: Tenant):
    await tenant.create_page("draft")
    await tenant.create_page("live", status="published")
    assert await paths(tenant, status="published") == ["/live"]
    assert await paths(tenant, status="draft") == ["/draft"]


async def test_type_and_is_manual_filters(tenant: Tenant, content: ContentFactory):
    await content.document(tenant.org, tenant.product, "imported-doc", type="doc", is_manual=False)
    await content.document(tenant.org, tenant.product, "manual-doc", type="doc")
    await content.document(tenant.org, tenant.product, "manual-page")
    assert sorted(await paths(tenant, type="doc")) == ["/imported-doc", "/manual-doc"]
    assert await paths(tenant, isManual="false") == ["/imported-doc"]
    assert await paths(tenant, type="doc", isManual="true") == ["/manual-doc"]


async def test_path_prefix_filter_with_or_without_leading_slash(tenant: Tenant):
    for slug in ("docs/a", "docs/b", "docsite", "blog/docs"):
        await tenant.create_page(slug)
    assert sorted(await paths(tenant, pathPrefix="/docs/")) == ["/docs/a", "/docs/b"]
    assert sorted(await paths(tenant, pathPrefix="docs")) == ["/docs/a", "/docs/b", "/docsite"]


async def test_has_content_filter(tenant: Tenant):
    await tenant.create_page("empty")
    await tenant.create_page("full", content="text")
    assert await paths(tenant, hasContent="true") == ["/full"]
    assert await paths(tenant, hasContent="false") == ["/empty"]


async def test_query_matches_title_and_path_case_insensitively(tenant: Tenant):
    await tenant.create_page("pricing", title="Our Plans")
    await tenant.create_page("about", title="Pricing history")
    await tenant.create_page("contact", title="Write to us")
    assert sorted(await paths(tenant, query="PRICING")) == ["/about", "/pricing"]
    assert await paths(tenant, query="plans") == ["/pricing"]


async def test_query_wildcards_are_literal(tenant: Tenant):
    await tenant.create_page("percent", title="100% sure")
    await tenant.create_page("plain", title="sure")
    assert await paths(tenant, query="%") == ["/percent"]
    assert await paths(tenant, query="_") == []


async def test_domain_filters(tenant: Tenant, domains: DomainFactory):
    one, two = await domains.create(tenant.org), await domains.create(tenant.org)
    await tenant.create_page("on-one", domainIds=[one["id"]])
    await tenant.create_page("on-both", domainIds=[one["id"], two["id"]])
    await tenant.create_page("on-none")
    assert sorted(await paths(tenant, domainId=one["id"])) == ["/on-both", "/on-one"]
    assert await paths(tenant, domain=two["domain"]) == ["/on-both"]


async def test_deleted_pages_and_other_products_are_not_listed(tenant: Tenant, stranger: Tenant):
    kept, gone = await tenant.create_page("kept"), await tenant.create_page("gone")
    await stranger.create_page("theirs")
    await tenant.delete_pages(gone["id"])
    assert await paths(tenant) == ["/kept"]
    assert kept["slug"] == "kept"


async def test_another_organizations_product_is_404(tenant: Tenant, stranger: Tenant):
    await stranger.create_page("secret")
    answer = await tenant.call("GET", "/api/v1/site/pages", params={"productId": stranger.product["id"]})
    assert (answer.status, answer.body["code"]) == (404, "NOT_FOUND")
    assert "secret" not in str(answer.body)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"color": "red"}, "color"),
        ({"page": "0"}, "page"),
        ({"page": "two"}, "page"),
        ({"pageSize": "101"}, "pageSize"),
        ({"status": "archived"}, "status"),
        ({"isManual": "maybe"}, "isManual"),
        ({"hasContent": "yes"}, "hasContent"),
        ({"orderBy": "title"}, "orderBy"),
        ({"orderByDirection": "up"}, "orderByDirection"),
        ({"domainId": "not-a-uuid"}, "domainId"),
        ({"domain": "Not A Host"}, "domain"),
        ({"query": ""}, "query"),
    ],
)
async def test_unknown_or_ill_typed_parameters_are_422(tenant: Tenant, params: dict, field: str):
    answer = await tenant.list_pages(**params)
    assert (answer.status, answer.body["code"]) == (422, "VALIDATION_FAILED")
    assert list(answer.body["details"]) == [field]


async def test_product_id_is_required(tenant: Tenant):
    answer = await tenant.call("GET", "/api/v1/site/pages")
    assert answer.status == 422
    assert answer.body["details"] == {"productId": "Missing data for required field."}


async def test_totals_match_the_items_for_every_combination_of_filters(
    tenant: Tenant, content: ContentFactory, domains: DomainFactory
):
    one, two = await domains.create(tenant.org), await domains.create(tenant.org)
    for index in range(8):
        attached = [one["id"], two["id"]][: index % 3]
        await tenant.create_page(
            f"p{index}", domainIds=attached, content="x" * (index % 2), status="published" if index % 4 else "draft"
        )
    await content.document(tenant.org, tenant.product, "imported", type="doc", is_manual=False)
    combinations = [
        {},
        {"status": "published"},
        {"domainId": one["id"]},
        {"domain": two["domain"]},
        {"domainId": one["id"], "status": "published", "hasContent": "true"},
        {"domain": one["domain"], "domainId": two["id"]},
        {"domain": one["domain"], "query": "p"},
        {"domainId": two["id"], "pathPrefix": "/p"},
        {"type": "doc", "isManual": "false"},
    ]
    for params in combinations:
        data = (await tenant.list_pages(pageSize=100, **params)).data
        assert data["total"] == len(data["items"]), params
    assert (await tenant.list_pages(domainId=one["id"])).data["total"] == 5


async def test_domain_filtered_totals_follow_later_changes_to_the_pages(tenant: Tenant, domains: DomainFactory):
    domain = await domains.create(tenant.org)
    kept = await tenant.create_page("kept", domainIds=[domain["id"]])
    gone = await tenant.create_page("gone", domainIds=[domain["id"]], status="published")
    await tenant.update_pages({"id": kept["id"], "status": "published", "content": "now with words"})
    await tenant.delete_pages(gone["id"])
    for params in ({"domainId": domain["id"]}, {"domain": domain["domain"]}):
        published = (await tenant.list_pages(status="published", hasContent="true", **params)).data
        assert (published["total"], [item["id"] for item in published["items"]]) == (1, [kept["id"]])
        assert (await tenant.list_pages(status="draft", **params)).data["total"] == 0


async def test_facet_totals_follow_every_kind_of_write_and_survive_folding(tenant: Tenant, content: ContentFactory):
    pages = [await tenant.create_page(f"w{index}", content="words" * (index % 2)) for index in range(6)]
    await content.document(tenant.org, tenant.product, "imported", type="doc", is_manual=False)
    await tenant.update_pages(
        {"id": pages[0]["id"], "title": "Only the title changes"},
        {"id": pages[1]["id"], "status": "published"},
        {"id": pages[2]["id"], "status": "published", "content": ""},
        {"id": pages[3]["id"], "isManual": False},
    )
    await tenant.update_pages({"id": pages[1]["id"], "status": "draft"})
    await tenant.delete_pages(pages[4]["id"])
    combinations = [
        {},
        {"status": "published"},
        {"status": "draft"},
        {"hasContent": "true"},
        {"hasContent": "false"},
        {"isManual": "false"},
        {"type": "doc", "isManual": "false"},
        {"status": "draft", "hasContent": "true"},
    ]

    async def totals() -> list[int]:
        found = []
        for params in combinations:
            data = (await tenant.list_pages(pageSize=100, **params)).data
            assert data["total"] == len(data["items"]), params
            found.append(data["total"])
        return found

    before = await totals()
    assert before[:3] == [6, 1, 5]
    async with transaction(content.pool) as cur:
        await fold_counts(cur)
        await cur.execute(
            "SELECT count(*) AS rows, count(DISTINCT (status, type, is_manual, has_content)) AS kinds"
            " FROM document_counts WHERE product_id = %s",
            (tenant.product["id"],),
        )
        counted = await cur.fetchone()
        assert (counted["rows"], counted["kinds"]) == (5, 5)  # one row for each kind of page
    assert await totals() == before
