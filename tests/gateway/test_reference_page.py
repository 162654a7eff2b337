"""/docs: the reference as a page rendered from the OpenAPI document the gateway serves."""

from __future__ import annotations

import html

from gateway.dashboard.reference_page import inline_code
from tests.conftest import Stack


async def test_the_reference_lists_every_operation_with_its_scope_parameters_examples_and_errors(stack: Stack):
    document = await (await stack.gateway.get("/api/v1/openapi.json")).json()
    answer = await stack.gateway.get("/docs", headers={"Accept-Encoding": "gzip"})
    assert answer.status == 200 and answer.headers["Content-Encoding"] == "gzip"
    page = html.unescape(await answer.text())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert f'id="{operation["operationId"]}"' in page, (method, path)
            assert f'<code class="path">{path}</code>' in page
    runs = document["paths"]["/api/v1/agent-simulation/runs"]["get"]
    status = next(parameter for parameter in runs["parameters"] if parameter["name"] == "status")
    assert "<code>simulations:read</code>" in page
    assert html.unescape(str(inline_code(status["description"]))) in page
    assert '"overallScore": 0.86' in page  # the answer's example
    assert "Validation failed; <code>details</code> maps field paths to messages" in page
    assert 'id="license"' in page and 'href="/docs/console"' in page
    # Each operation its own errors: a read by id cannot fail validation, a write can.
    read = page[page.index('id="webhook_endpoints_get"') :]
    read = read[: read.index("</article>")]
    assert "<dt>404</dt>" in read and "<dt>422</dt>" not in read and "<dt>409</dt>" not in read
    create = page[page.index('id="apps_create"') :]
    create = create[: create.index("</article>")]
    assert "<dt>422</dt>" in create and "<dt>409</dt>" in create and "<dt>404</dt>" not in create
    assert "<dt>5XX</dt>" in create and "<dt>502</dt>" not in create


async def test_each_operation_lists_its_body_and_answer_fields_with_their_descriptions(stack: Stack):
    page = html.unescape(await (await stack.gateway.get("/docs")).text())
    create = page[page.index('id="apps_create"') :]
    create = create[: create.index("</article>")]
    assert "<caption>Request body</caption>" in create and "<caption>Answer: data</caption>" in create
    assert '<code>name</code> <span class="required">required</span>' in create
    assert "Its name, as people see it." in create and "<code>appConfig.config</code>" in create
    batch = page[page.index('id="apps_routes_batch"') :]
    assert "<code>routes[].path</code>" in batch[: batch.index("</article>")]
    event = page[page.index('id="webhook_app_created"') :]
    assert "<caption>Payload</caption>" in event[: event.index("</article>")]


async def test_each_operation_lists_the_header_parameters_it_names_from_the_components(stack: Stack):
    page = html.unescape(await (await stack.gateway.get("/docs")).text())
    for operation, headers in (
        ("apps_create", ("Idempotency-Key",)),
        ("content_update", ("Idempotency-Key", "If-Match")),
        ("content_get", ("If-None-Match",)),
        ("webhook_app_created", ("webhook-id", "webhook-timestamp", "webhook-signature")),
    ):
        article = page[page.index(f'id="{operation}"') :]
        parameters = article[: article.index("</article>")]
        for header in headers:
            assert f"<td><code>{header}</code>" in parameters, (operation, header)
    assert "Makes a retry safe:" in page and "Write only if the resource still has this ETag" in page


async def test_the_reference_shows_each_webhook_event_with_its_payload(stack: Stack):
    document = await (await stack.gateway.get("/api/v1/openapi.json")).json()
    page = html.unescape(await (await stack.gateway.get("/docs")).text())
    assert 'id="tag-webhook-events"' in page
    for event_type, item in document["webhooks"].items():
        assert f'<code class="path">{event_type}</code>' in page
        assert f'id="{item["post"]["operationId"]}"' in page
    assert '"type": "app.route.deleted"' in page  # a payload's example
    verifying = page[page.index('id="verifying-signatures"') :]
    libraries = ("from standardwebhooks.webhooks import Webhook", 'import { Webhook } from "standardwebhooks"')
    for text in (*libraries, "webhook-id", "webhook-timestamp", "webhook-signature", "whsec_"):
        assert text in verifying, text
    assert page.index('id="tag-webhook-events"') < page.index('id="verifying-signatures"')
    overview = page[page.index('id="overview"') : page.index('id="tag-')]
    assert '{"items": [...], "nextCursor": "..."}' in overview and "total" in overview  # said once
    assert page.count('"nextCursor": "..."}') == 1


async def test_code_spans_become_code_and_the_rest_is_escaped():
    assert str(inline_code("Requires `content:read` <b>")) == "Requires <code>content:read</code> &lt;b&gt;"
