"""Calls through the gateway that the tests over several real services share."""

from __future__ import annotations

from typing import Any


async def call(gateway, method: str, path: str, headers: dict[str, str], **kwargs: Any) -> tuple[int, dict]:
    response = await gateway.request(method, path, headers=headers, **kwargs)
    return response.status, await response.json()


async def new_app(gateway, headers: dict[str, str]) -> dict[str, Any]:
    status, body = await call(gateway, "POST", "/api/v1/apps", headers, json={"name": "Docs site"})
    assert status == 201, body
    return body["data"]


async def new_app_of(gateway, headers: dict[str, str], product: dict[str, Any]) -> dict[str, Any]:
    app = await new_app(gateway, headers)
    status, body = await call(
        gateway, "POST", f"/api/v1/apps/{app['id']}/resources", headers, json={"resourceId": product["id"]}
    )
    assert status == 201, body
    return app


def item(path: str, document: dict[str, Any]) -> dict[str, str]:
    """An import item routing `path` to the document."""
    return {"path": path, "targetId": document["id"], "targetType": "product_document"}
