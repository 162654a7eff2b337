"""GET /docs: the API reference, a page rendered from the OpenAPI document; GET /docs/console:
Swagger UI on the same document, to send requests from the browser ("Try it out").

/docs is plain HTML and one small stylesheet, so it is drawn as fast as any page (Swagger UI
spends over a second of script on the document before it lists anything: docs/performance.md). Every file either page
loads is served under /assets/ by content hash (gateway/dashboard/static_files.py): a second
visit downloads only the page. Swagger UI 5 renders OpenAPI 3.1, the version of the gateway's
document.
"""

from __future__ import annotations

from functools import lru_cache

import aiohttp_jinja2
import jinja2
from aiohttp import web
from markupsafe import Markup

from gateway.dashboard.reference_page import WEBHOOKS_TAG, inline_code, introduction, sections, tag_anchor
from gateway.dashboard.render import render
from gateway.state import OPENAPI_DOCUMENT


@lru_cache(maxsize=4)
def _body(environment: jinja2.Environment, document: bytes) -> Markup:
    """The page's body, the same for every visitor: rendered once per document."""
    template = environment.get_template("_reference.html")
    return Markup(
        template.render(
            info=introduction(document), sections=sections(document), code=inline_code, webhooks_tag=WEBHOOKS_TAG
        )
    )


async def reference(request: web.Request) -> web.Response:
    """Public: the reference needs no account."""
    body = _body(aiohttp_jinja2.get_env(request.app), request.config_dict[OPENAPI_DOCUMENT].body)
    response = await render(request, "docs.html", {"body": body})
    response.enable_compression()
    return response


async def reference_console(request: web.Request) -> web.Response:
    """Public: Swagger UI sends requests with the credential the person enters in it. The webhook
    events, which the API sends rather than answers, are the reference's to show."""
    return await render(request, "docs_console.html", {"webhooks": f"/docs#{tag_anchor(WEBHOOKS_TAG)}"})


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/docs", reference, name="dashboard.reference")
    router.add_get("/docs/console", reference_console, name="dashboard.reference_console")
