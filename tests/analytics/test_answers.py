"""Answers collected elsewhere, sent through the gateway, analysed like the product's own, read
back by id and by filters, and never across organizations."""

from __future__ import annotations

from gateway.identity.auth.scopes import ALL_SCOPES
from tests.analytics.conftest import Collector
from tests.factories import eventually

TEXT = (
    "Top picks:\n1. Globex is the incumbent.\n2. Acme Cloud is excellent and fast.\n3. Notion, if you already use it.\n"
    "Sources: https://acme.com/pricing?utm_source=openai"
)


async def test_an_ingested_answer_is_stored_and_analysed(collector: Collector):
    sent = collector.answer(
        TEXT,
        citations=[{"url": "https://www.globex.com/blog/", "title": "Globex blog"}],
        sources=[{"url": "https://news.example.co.uk/a"}],
        usage={"inputTokens": 12, "outputTokens": 80, "costUsd": 0.0012},
    )
    status, answer = await collector.tenant.call("POST", "/api/v1/answers", json=sent)
    assert status == 201
    stored = answer["data"]
    assert (stored["externalId"], stored["source"], stored["status"], stored["analysis"]) == (
        sent["id"],
        "ingested",
        "completed",
        None,
    )
    assert stored["prompt"] == {"id": None, "version": None, "text": sent["prompt"], "topicId": None}
    assert stored["usage"] == {"inputTokens": 12, "outputTokens": 80, "costUsd": 0.0012}
    analysed = await collector.analysed(stored["id"])
    analysis = analysed["analysis"]
    assert analysis["competitorSetVersion"] == 2
    brands = [(b["kind"], b["name"], b["position"], b["listRank"], b["mentions"]) for b in analysis["brands"]]
    assert brands == [
        ("competitor", "Globex", 1, 1, 1),
        ("brand", "Acme", 2, 2, 1),
        ("competitor", "Notion", 3, 3, 1),
    ]
    acme = analysis["brands"][1]
    assert acme["spans"] == [
        {"start": TEXT.index("Acme Cloud"), "end": TEXT.index("Acme Cloud") + 10, "text": "Acme Cloud", "fuzzy": False}
    ]
    assert acme["sentiment"]["label"] == "positive" and acme["competitorId"] is None
    assert [(c["url"], c["cited"], c["classification"]) for c in analysis["citations"]] == [
        ("https://www.globex.com/blog", True, "competitor"),
        ("https://acme.com/pricing", True, "owned"),
        ("https://news.example.co.uk/a", False, "third_party"),
    ]
    assert analysis["citations"][0]["competitorId"] == analysis["brands"][0]["competitorId"]


async def test_each_citation_says_where_the_text_writes_it(collector: Collector):
    text = (
        "Acme's prices: https://acme.com/pricing?utm_source=openai. Globex lists its plans at"
        " https://globex.com/plans, and Acme again at https://acme.com/pricing/."
    )
    sent = await collector.send(
        text,
        citations=[{"url": "https://docs.example.org/guide"}, {"url": "https://acme.com/pricing"}],
        sources=[{"url": "https://globex.com/plans"}, {"url": "https://news.example.org/a"}],
    )
    analysed = await collector.analysed(sent["id"])

    def at(written: str, after: int = 0) -> dict[str, int]:
        start = text.index(written, after)
        return {"start": start, "end": start + len(written)}

    pricing = at("https://acme.com/pricing?utm_source=openai")
    assert [(c["url"], c["cited"], c["spans"]) for c in analysed["analysis"]["citations"]] == [
        ("https://docs.example.org/guide", True, []),
        ("https://acme.com/pricing", True, [pricing, at("https://acme.com/pricing/", pricing["end"])]),
        ("https://globex.com/plans", True, [at("https://globex.com/plans")]),
        ("https://news.example.org/a", False, []),
    ]
    status, listing = await collector.tenant.call(
        "GET", "/api/v1/answers", params={"productId": collector.tenant.product["id"]}
    )
    assert status == 200
    assert listing["data"]["items"][0]["analysis"]["citations"] == analysed["analysis"]["citations"]


async def test_the_same_id_again_is_the_stored_answer_and_another_body_is_409(collector: Collector):
    sent = collector.answer("Acme.")
    _, first = await collector.tenant.call("POST", "/api/v1/answers", json=sent)
    status, again = await collector.tenant.call("POST", "/api/v1/answers", json=sent)
    assert (status, again["data"]["id"]) == (200, first["data"]["id"])
    status, changed = await collector.tenant.call("POST", "/api/v1/answers", json={**sent, "text": "Globex."})
    assert (status, changed["message"]) == (409, "an answer with this id was sent before with another body")
    _, listing = await collector.tenant.call("GET", "/api/v1/answers", params={"productId": sent["productId"]})
    assert [item["id"] for item in listing["data"]["items"]] == [first["data"]["id"]]


async def test_a_tracked_prompt_is_recorded_with_its_version(collector: Collector):
    tenant = collector.tenant
    _, prompt = await tenant.call("POST", f"/api/v1/products/{tenant.product['id']}/prompts", json={"text": "Best BI?"})
    await tenant.call("PATCH", f"/api/v1/prompts/{prompt['data']['id']}", json={"text": "Best BI tool?"})
    stored = await collector.send("Acme.", prompt=None, promptId=prompt["data"]["id"])
    assert stored["prompt"] == {"id": prompt["data"]["id"], "version": 2, "text": "Best BI tool?", "topicId": None}


async def test_a_bad_answer_is_422_naming_the_field(collector: Collector, stranger: Collector):
    cases = [
        ({"prompt": None}, {"prompt": "Send promptId (a tracked prompt) or prompt (its text)."}),
        ({"text": " "}, {"text": "A completed answer has text; send status empty for one without."}),
        ({"engine": "Open AI"}, {"engine": "Lowercase letters, digits, . and -."}),
        ({"answeredAt": "2026-11-20T09:00:00"}, {"answeredAt": "Not a valid aware datetime."}),
        ({"citations": [{"title": "x"}]}, {"citations.0.url": "Missing data for required field."}),
    ]
    for fields, details in cases:
        status, answer = await collector.tenant.call(
            "POST", "/api/v1/answers", json={**collector.answer("Acme."), **fields}
        )
        assert (status, answer["details"]) == (422, details), fields
    _, theirs = await stranger.tenant.call(
        "POST", f"/api/v1/products/{stranger.tenant.product['id']}/prompts", json={"text": "Theirs?"}
    )
    status, answer = await collector.tenant.call(
        "POST", "/api/v1/answers", json=collector.answer("Acme.", promptId=theirs["data"]["id"])
    )
    assert (status, answer["details"]) == (422, {"promptId": "No tracked prompt of this product."})


async def test_answers_filter_by_brand_competitor_domain_engine_and_time(collector: Collector):
    acme = await collector.send("Acme is great. See https://acme.com/a", engine="perplexity-sonar")
    globex = await collector.send("Globex only. https://globex.com/x", answeredAt="2026-11-21T09:00:00Z")
    neither = await collector.send("Nobody we track.", answeredAt="2026-11-22T09:00:00Z")
    analysed = [await collector.analysed(answer["id"]) for answer in (acme, globex, neither)]
    competitor_id = analysed[1]["analysis"]["brands"][0]["competitorId"]

    async def ids(**params: str) -> list[str]:
        status, answer = await collector.tenant.call(
            "GET", "/api/v1/answers", params={"productId": collector.tenant.product["id"], **params}
        )
        assert status == 200, answer
        return [item["id"] for item in answer["data"]["items"]]

    assert await ids() == [neither["id"], globex["id"], acme["id"]]
    assert await ids(brandMentioned="true") == [acme["id"]]
    assert await ids(brandMentioned="false") == [neither["id"], globex["id"]]
    assert await ids(competitorId=competitor_id) == [globex["id"]]
    assert await ids(domain="acme.com") == [acme["id"]]
    assert await ids(engine="perplexity-sonar") == [acme["id"]]
    assert await ids(**{"from": "2026-11-21T00:00:00Z", "to": "2026-11-22T00:00:00Z"}) == [globex["id"]]
    first = await collector.tenant.call("GET", "/api/v1/answers", params={"limit": "2"})
    cursor = first[1]["data"]["nextCursor"]
    _, rest = await collector.tenant.call("GET", "/api/v1/answers", params={"limit": "2", "cursor": cursor})
    assert [item["id"] for item in rest["data"]["items"]] == [acme["id"]]


async def test_answers_of_another_organization_are_not_seen(collector: Collector, stranger: Collector):
    mine = await collector.send("Acme.")
    status, answer = await stranger.tenant.call("GET", f"/api/v1/answers/{mine['id']}")
    assert (status, answer["message"]) == (404, "answer not found")
    status, _ = await stranger.tenant.call(
        "GET", "/api/v1/answers", params={"productId": collector.tenant.product["id"]}
    )
    assert status == 404
    _, theirs = await stranger.tenant.call("GET", "/api/v1/answers")
    assert mine["id"] not in [item["id"] for item in theirs["data"]["items"]]
    status, _ = await stranger.tenant.call("POST", "/api/v1/answers", json=collector.answer("Acme."))
    assert status == 404
    # The same collector id in two organizations is two answers.
    sent = collector.answer("Acme.")
    await collector.tenant.call("POST", "/api/v1/answers", json=sent)
    status, _ = await stranger.tenant.call(
        "POST", "/api/v1/answers", json={**sent, "productId": stranger.tenant.product["id"]}
    )
    assert status == 201


async def test_answers_need_their_scopes(collector: Collector, identity):
    tenant = collector.tenant
    no_write = await tenant.with_scopes(identity, ALL_SCOPES - {"analytics:write"})
    status, answer = await no_write.call("POST", "/api/v1/answers", json=collector.answer("Acme."))
    assert (status, answer["details"]) == (403, {"requiredScope": "analytics:write"})
    no_read = await tenant.with_scopes(identity, ALL_SCOPES - {"prompts:read"})
    status, answer = await no_read.call("GET", "/api/v1/answers")
    assert (status, answer["details"]) == (403, {"requiredScope": "prompts:read"})


async def test_the_engine_catalog_answers_any_credential(collector: Collector, identity):
    narrow = await collector.tenant.with_scopes(identity, frozenset({"content:read"}))
    status, answer = await narrow.call("GET", "/api/v1/engines")
    assert status == 200
    assert [(e["id"], e["vendor"], e["searchesWeb"], e["configured"]) for e in answer["data"]["items"]] == [
        ("openai-search", "openai", True, False),
        ("perplexity-sonar", "perplexity", True, False),
        ("anthropic-web", "anthropic", True, False),
    ]


async def test_a_competitor_added_later_is_found_once_the_answers_are_analysed_again(collector: Collector):
    tenant = collector.tenant
    sent = await collector.send("Initech and Acme both work.")
    first = (await collector.analysed(sent["id"]))["analysis"]
    assert ([b["name"] for b in first["brands"]], first["competitorSetVersion"]) == (["Acme"], 2)
    await tenant.call("POST", f"/api/v1/products/{tenant.product['id']}/competitors", json={"name": "Initech"})
    status, queued = await tenant.call("POST", "/api/v1/answers/reanalyse", json={"productId": tenant.product["id"]})
    assert (status, queued["data"]) == (202, {"queued": 1, "analysisVersion": 2})

    async def again() -> bool:
        _, answer = await tenant.call("GET", f"/api/v1/answers/{sent['id']}")
        return answer["data"]["analysis"]["id"] != first["id"]

    await eventually(again)
    _, answer = await tenant.call("GET", f"/api/v1/answers/{sent['id']}")
    analysis = answer["data"]["analysis"]
    assert ([b["name"] for b in analysis["brands"]], analysis["competitorSetVersion"]) == (["Initech", "Acme"], 3)
    assert answer["data"]["text"] == "Initech and Acme both work."


async def test_reanalysis_is_refused_for_another_organizations_product(collector: Collector, stranger: Collector):
    status, _ = await stranger.tenant.call(
        "POST", "/api/v1/answers/reanalyse", json={"productId": collector.tenant.product["id"]}
    )
    assert status == 404
