"""Rendering a dashboard page: the template, plus what every page's layout needs."""

from __future__ import annotations

from typing import Any

import aiohttp_jinja2
from aiohttp import web
from aiohttp_session import get_session

from gateway.dashboard.csrf import csrf_token
from gateway.dashboard.session import current_user

FLASH = "flash"


async def render(
    request: web.Request, template: str, context: dict[str, Any] | None = None, status: int = 200
) -> web.Response:
    """A page from `templates/`; the layout also gets the user, their organizations and a CSRF token."""
    return aiohttp_jinja2.render_template(
        template, request, {**await _layout(request), **(context or {})}, status=status
    )


async def flash(request: web.Request, message: str) -> None:
    """A message for the next page this browser renders (after a redirect)."""
    session = await get_session(request)
    session[FLASH] = message


async def _layout(request: web.Request) -> dict[str, Any]:
    session = await get_session(request)
    return {
        "csrf_token": csrf_token(session),
        "signed_in": await current_user(request),
        "flash": session.pop(FLASH, None),
        "request_path": request.path,
    }
