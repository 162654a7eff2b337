"""The suite's check of every success answer against its route's declared schema can fail."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web

from libs.common.encoding import dumps
from tests.answer_shapes import answer_shapes_middleware


async def answers(aiohttp_client: Any, data: Any, status: int = 200) -> list[str]:
    """What the check records for one answer of `data` by the route named `products_list`."""
    violations: list[str] = []

    async def products_list(request: web.Request) -> web.Response:
        return web.Response(body=dumps({"ok": status < 400, "data": data}), status=status)

    app = web.Application(middlewares=[answer_shapes_middleware(violations)])
    app.router.add_get("/api/v1/products", products_list, name="products_list")
    client = await aiohttp_client(app)
    await client.get("/api/v1/products")
    return violations


async def test_an_answer_of_the_declared_shape_passes(aiohttp_client):
    assert await answers(aiohttp_client, [{"id": "p", "name": "Widget", "slug": "widget"}]) == []


@pytest.mark.parametrize(
    "data",
    [[{"id": "p", "name": "Widget"}], [{"id": "p", "name": "Widget", "slug": "widget", "extra": 1}], {"id": "p"}],
    ids=["missing field", "undeclared field", "one where a list is declared"],
)
async def test_an_answer_that_drifts_from_its_declaration_is_recorded(aiohttp_client, data):
    [violation] = await answers(aiohttp_client, data)
    assert violation.startswith("GET /api/v1/products: ")


async def test_error_answers_are_not_success_shapes(aiohttp_client):
    assert await answers(aiohttp_client, None, status=404) == []
