"""`aivis pages create|update`: the one page the options describe, or the pages of --file, as the body."""

from __future__ import annotations

import json

from tests.cli.conftest import Aivis, FakeApi, ok

PAGES = "/api/v1/site/pages"
PRODUCT_ID = "0b6c9f7e-1111-4222-8333-444455556666"
PAGE_ID = "7c7c7c7c-1111-4222-8333-444455556666"
DOMAIN_ID = "9d9d9d9d-1111-4222-8333-444455556666"


def test_create_sends_the_page_its_options_describe(run: Aivis, api: FakeApi, tmp_path):
    api.on(
        "POST",
        PAGES,
        ok({"created": [{"id": PAGE_ID, "title": "Start"}], "createdCount": 1, "failed": [], "failedCount": 0}),
    )
    text = tmp_path / "start.md"
    text.write_text("# Start")
    result = run(
        "pages",
        "create",
        "--product",
        PRODUCT_ID,
        "--slug",
        "start",
        "--title",
        "Start",
        "--content",
        f"@{text}",
        "--meta-title",
        "Start here",
        "--status",
        "published",
        "--domain",
        DOMAIN_ID,
        "--canonical-domain",
        DOMAIN_ID,
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("POST", PAGES) == [
        {
            "productId": PRODUCT_ID,
            "pages": [
                {
                    "slug": "start",
                    "title": "Start",
                    "content": "# Start",
                    "metaTitle": "Start here",
                    "status": "published",
                    "domainIds": [DOMAIN_ID],
                    "canonicalDomainId": DOMAIN_ID,
                }
            ],
        }
    ]
    assert result.stdout == f"{PAGE_ID}\tStart\n"
    assert "created 1 page" in result.stderr


def test_update_sends_the_page_its_options_describe_and_needs_an_id(run: Aivis, api: FakeApi):
    api.on(
        "PATCH",
        PAGES,
        ok({"updated": [{"id": PAGE_ID, "title": "New"}], "updatedCount": 1, "failed": [], "failedCount": 0}),
    )
    result = run(
        "pages",
        "update",
        "--product",
        PRODUCT_ID,
        "--id",
        PAGE_ID,
        "--title",
        "New",
        "--description",
        "d",
        "--not-manual",
        "--detach",
        DOMAIN_ID,
    )
    assert result.exit_code == 0, result.output
    assert api.bodies("PATCH", PAGES) == [
        {
            "productId": PRODUCT_ID,
            "pages": [
                {
                    "id": PAGE_ID,
                    "title": "New",
                    "description": "d",
                    "isManual": False,
                    "detachDomainIds": [DOMAIN_ID],
                }
            ],
        }
    ]
    refused = run("pages", "update", "--product", PRODUCT_ID, "--title", "New")
    assert refused.exit_code == 2 and "give --id, or --file" in refused.stderr
    assert len(api.bodies("PATCH", PAGES)) == 1


def test_a_file_gives_the_pages_and_the_options_are_not_asked_for(run: Aivis, api: FakeApi, tmp_path):
    api.on("PATCH", PAGES, ok({"updated": [], "updatedCount": 0, "failed": [], "failedCount": 0}))
    pages = [{"id": PAGE_ID, "title": "One"}, {"id": DOMAIN_ID, "status": "draft"}]
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps(pages))
    result = run("pages", "update", "--product", PRODUCT_ID, "--file", str(changes))
    assert result.exit_code == 0, result.output
    assert api.bodies("PATCH", PAGES) == [{"productId": PRODUCT_ID, "pages": pages}]
