"""GET /api/v1/site/pages?query=: the substring filter, read from listed_documents, under writes."""

from __future__ import annotations

from typing import Any

from libs.common.db import fetch_all, transaction
from services.content.queries.site_pages import like_escape
from tests.content.api import Tenant
from tests.factories import ContentFactory, DomainFactory, IdentityFactory

ORDERS = {"updatedAt": "updated_at", "createdAt": "created_at"}


async def ids_by_ilike(content: ContentFactory, tenant: Tenant, query: str, params: dict[str, str]) -> list[str]:
    """The ids the list answered before listed_documents: ILIKE on the documents themselves, in the list's order."""
    direction = params.get("orderByDirection", "desc").upper()
    order = ORDERS[params.get("orderBy", "updatedAt")]
    conditions = [
        "product_id = %(product)s",
        "deleted_at IS NULL",
        "(title ILIKE %(pattern)s OR file_path ILIKE %(pattern)s)",
    ]
    if "status" in params:
        conditions.append("status = %(status)s")
    if "pathPrefix" in params:
        conditions.append("file_path LIKE %(prefix)s")
    async with transaction(content.pool) as cur:
        rows = await fetch_all(
            cur,
            f"SELECT id FROM documents WHERE {' AND '.join(conditions)} ORDER BY {order} {direction}, id {direction}",
            {
                "product": tenant.product["id"],
                "pattern": f"%{like_escape(query)}%",
                "status": params.get("status"),
                "prefix": like_escape(params.get("pathPrefix", "")) + "%",
            },
        )
    return [str(row["id"]) for row in rows]


async def listed(tenant: Tenant, **params: Any) -> tuple[int, list[str]]:
    """The total and the ids of every page the list answers, fetched page by page, 3 at a time."""
    ids: list[str] = []
    for page in range(1, 100):
        data = (await tenant.list_pages(pageSize=3, page=page, **params)).data
        ids += [item["id"] for item in data["items"]]
        if not data["items"]:
            return data["total"], ids
    raise AssertionError("too many pages")


async def test_matches_and_their_order_are_those_of_ilike_on_the_documents(tenant: Tenant, content: ContentFactory):
    titles = {
        "pricing": "Our Plans",
        "about": "PRICING history",
        "contact": "Write to us",
        "unicode": "Ünïcode ÉTÉ",
        "guides/Über-Uns": "Über uns",
        "percent": "100% sure_thing",
        "backslash": "a\\b",
        "turkish": "İstanbul",
        "guides/pricing-faq": "Questions",
        "straße": "Straße",
        "blank": "   ",
    }
    for slug, title in titles.items():
        await content.document(tenant.org, tenant.product, slug, title=title)
    await tenant.update_pages(
        *[
            {"id": item["id"], "status": "published"}
            for item in (await tenant.list_pages(pageSize=100)).data["items"][::2]
        ]
    )
    queries = ["pricing", "PRIC", "ü", "Ü", "é", "ÉTÉ", "%", "_", "\\", "i", "İ", "ss", "ß", "uns", "/", " ", "nothing"]
    params_of = [
        {},
        {"orderBy": "createdAt", "orderByDirection": "asc"},
        {"status": "published"},
        {"pathPrefix": "/guides/"},
    ]
    for query in queries:
        for params in params_of:
            expected = await ids_by_ilike(content, tenant, query, params)
            assert await listed(tenant, query=query, **params) == (len(expected), expected), (query, params)


async def test_search_totals_follow_edits_paths_and_deletes(tenant: Tenant):
    pages = {slug: await tenant.create_page(slug, title=f"Page {slug}") for slug in ("one", "two", "three", "four")}

    async def found() -> tuple[int, list[str]]:
        data = (await tenant.list_pages(query="pricing", pageSize=100)).data
        return data["total"], [item["filePath"] for item in data["items"]]

    assert await found() == (0, [])
    await tenant.update_pages(
        {"id": pages["one"]["id"], "title": "Pricing of one"},
        {"id": pages["two"]["id"], "filePath": "/plans/pricing-two"},
    )
    assert await found() == (2, ["/plans/pricing-two", "/one"])
    await tenant.update_pages(
        {"id": pages["one"]["id"], "title": "Just one"}, {"id": pages["three"]["id"], "title": "PRICING three"}
    )
    assert await found() == (2, ["/three", "/plans/pricing-two"])
    await tenant.delete_pages(pages["two"]["id"])
    assert await found() == (1, ["/three"])
    await tenant.update_pages({"id": pages["three"]["id"], "status": "published"})
    published = (await tenant.list_pages(query="pricing", status="published")).data
    drafts = (await tenant.list_pages(query="pricing", status="draft")).data
    assert (published["total"], [item["id"] for item in published["items"]]) == (1, [pages["three"]["id"]])
    assert (drafts["total"], drafts["items"]) == (0, [])


async def test_search_combines_with_domain_filters(tenant: Tenant, domains: DomainFactory):
    domain = await domains.create(tenant.org)
    on_domain = await tenant.create_page("pricing-on", domainIds=[domain["id"]])
    await tenant.create_page("pricing-off")
    for params in ({"domainId": domain["id"]}, {"domain": domain["domain"]}):
        data = (await tenant.list_pages(query="pricing", **params)).data
        assert (data["total"], [item["id"] for item in data["items"]]) == (1, [on_domain["id"]])
    await tenant.update_pages({"id": on_domain["id"], "detachDomainIds": [domain["id"]]})
    assert (await tenant.list_pages(query="pricing", domainId=domain["id"])).data["total"] == 0


async def test_a_document_moved_to_another_product_is_searched_and_counted_there(
    tenant: Tenant, content: ContentFactory, identity: IdentityFactory
):
    other = await identity.product(tenant.org)
    moved = await tenant.create_page("pricing-moved")
    await tenant.create_page("pricing-stays")
    # No operation moves a page between products; the listing follows any write to documents.
    async with transaction(content.pool) as cur:
        await cur.execute("UPDATE documents SET product_id = %s WHERE id = %s", (other["id"], moved["id"]))
    there = Tenant(tenant.gateway, tenant.org, other, tenant.key)
    for where, expected in ((tenant, ["/pricing-stays"]), (there, ["/pricing-moved"])):
        for params in ({"query": "pricing"}, {}):
            data = (await where.list_pages(**params)).data
            assert (data["total"], [item["filePath"] for item in data["items"]]) == (1, expected), params


async def test_the_listing_is_every_live_document_as_written(tenant: Tenant, content: ContentFactory):
    pages = [await tenant.create_page(f"l{index}", title=f"Title {index}") for index in range(4)]
    await tenant.update_pages(
        {"id": pages[0]["id"], "title": "Ändert", "content": "now"},
        {"id": pages[1]["id"], "filePath": "/Elsewhere", "status": "published"},
        {"id": pages[2]["id"], "isManual": False},
    )
    await tenant.delete_pages(pages[3]["id"])
    await content.document(tenant.org, tenant.product, "imported", title="IMPORTED", type="doc")
    async with transaction(content.pool) as cur:
        listing = await fetch_all(
            cur, "SELECT * FROM listed_documents WHERE product_id = %s ORDER BY id", (tenant.product["id"],)
        )
        expected = await fetch_all(
            cur,
            "SELECT l.* FROM documents d, document_listing(d) l"
            " WHERE d.product_id = %s AND d.deleted_at IS NULL ORDER BY l.id",
            (tenant.product["id"],),
        )
    assert len(listing) == 4
    assert listing == expected
    assert [row["title_lower"] for row in listing if row["type"] == "doc"] == ["imported"]
