"""Driving the dashboard over HTTP as a browser would: pages, their CSRF tokens, forms."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import ClientResponse

from tests.conftest import Client

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
SECRET = re.compile(r'id="new-secret" type="text" readonly value="(avk_[^"]+)"')


async def token_of(client: Client, path: str) -> str:
    response = await client.get(path)
    assert response.status == 200, await response.text()
    found = CSRF.search(await response.text())
    assert found is not None
    return found.group(1)


async def submit(
    client: Client, page: str, data: dict[str, Any] | list[tuple[str, str]], action: str | None = None
) -> ClientResponse:
    """Fill the form of `page` (with its CSRF token) and post it to `action` (default: the page)."""
    token = await token_of(client, page)
    fields = list(data.items()) if isinstance(data, dict) else list(data)
    return await client.post(action or page, data=[("csrf_token", token), *fields], allow_redirects=False)


async def sign_in(client: Client, email: str, password: str) -> ClientResponse:
    return await submit(client, "/login", {"email": email, "password": password})


async def signed_in(client: Client, email: str, password: str) -> Client:
    response = await sign_in(client, email, password)
    assert response.status == 303, await response.text()
    return client


def secret_in(html: str) -> str:
    found = SECRET.search(html)
    assert found is not None, html
    return found.group(1)


async def shown_once(client: Client, response: ClientResponse) -> str:
    """The page a create or rotate form redirects to, which shows the new key's secret (once)."""
    assert response.status == 303, await response.text()
    location = response.headers["Location"]
    assert location.endswith("/new"), location
    page = await client.get(location, allow_redirects=False)
    assert page.status == 200, await page.text()
    return await page.text()


async def page(client: Client, path: str, status: int = 200) -> str:
    response = await client.get(path, allow_redirects=False)
    text = await response.text()
    assert response.status == status, text
    return text


async def api(client: Client, key: str, method: str, path: str, **kwargs: Any) -> Any:
    response = await client.request(method, path, headers={"x-api-key": key}, **kwargs)
    body = await response.json()
    assert response.status < 300, body
    return body["data"]
