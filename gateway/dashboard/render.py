"""Rendering a dashboard page: the template, plus what every page's layout needs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp_session import get_session
from markupsafe import Markup

from gateway.dashboard.csrf import CSRF_COOKIE, NEW_VISITOR_TOKEN, csrf_token
from gateway.dashboard.session import ANONYMOUS_MAX_AGE, current_user
from gateway.dashboard.static_files import asset_url
from gateway.identity.auth.scopes import ALL_SCOPES
from gateway.settings import GatewaySettings
from gateway.state import CLOCK
from libs.common.markdown import render_markdown
from libs.common.state import SETTINGS

FLASH = "flash"


def when(moment: datetime | str | None) -> Markup:
    """A timestamp (or one in ISO 8601, as JSON keeps it) for people, in UTC to the minute, and
    machine-readable in `<time>`."""
    if moment is None:
        return Markup('<span class="muted">—</span>')
    moment = (datetime.fromisoformat(moment) if isinstance(moment, str) else moment).astimezone(UTC)
    return Markup('<time datetime="{}">{}</time>').format(moment.isoformat(), moment.strftime("%Y-%m-%d %H:%M UTC"))


def key_state(key: Mapping[str, Any], now: datetime) -> str:
    """active, ending (revocation scheduled), revoked or expired."""
    if key["revoked_at"] is not None and key["revoked_at"] <= now:
        return "revoked"
    if key["expires_at"] is not None and key["expires_at"] <= now:
        return "expired"
    return "ending" if key["revoked_at"] is not None else "active"


def page_link(query: Mapping[str, str], page: int) -> str:
    """The current list's address at another page, keeping its filters."""
    pairs = [(name, value) for name, value in query.items() if name != "page"]
    return "?" + urlencode([*pairs, ("page", str(max(1, page)))])


def markdown(text: str | None) -> Markup:
    """Markdown as HTML for a preview. Raw HTML in the text is shown as text, never run, and links
    keep only safe schemes (markdown-it's CommonMark preset with `html` off)."""
    return Markup(render_markdown(text))


def setup_templates(app: web.Application) -> None:
    environment = aiohttp_jinja2.setup(
        app,
        loader=jinja2.PackageLoader("gateway.dashboard", "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["when"] = when
    environment.filters["page_link"] = page_link
    environment.filters["markdown"] = markdown
    environment.globals["key_state"] = key_state
    environment.globals["asset_url"] = asset_url
    environment.globals["all_scopes"] = sorted(ALL_SCOPES)


async def render(
    request: web.Request, template: str, context: dict[str, Any] | None = None, status: int = 200
) -> web.Response:
    """A page from `templates/`; the layout also gets the user, their organizations and a CSRF token."""
    response = aiohttp_jinja2.render_template(
        template, request, {**await _layout(request), **(context or {})}, status=status
    )
    if NEW_VISITOR_TOKEN in request:
        settings: GatewaySettings = request.config_dict[SETTINGS]
        response.set_cookie(
            CSRF_COOKIE,
            request[NEW_VISITOR_TOKEN],
            max_age=ANONYMOUS_MAX_AGE,
            path="/",
            httponly=True,
            samesite="Strict",
            secure=not settings.development,
        )
    return response


async def flash(request: web.Request, message: str) -> None:
    """A message for the next page this browser renders (after a redirect)."""
    session = await get_session(request)
    session[FLASH] = message


async def _layout(request: web.Request) -> dict[str, Any]:
    session = await get_session(request)
    return {
        "csrf_token": csrf_token(request, session),
        "signed_in": await current_user(request),
        "flash": session.pop(FLASH, None),
        "request_path": request.path,
        "request_query": request.query,
        "now": request.config_dict[CLOCK](),
    }


def try_again_in(seconds: int) -> str:
    """How long a refused attempt must wait, for people: whole minutes, at least one."""
    minutes = max(1, -(-seconds // 60))
    return f"Try again in {minutes} minute{'s' if minutes > 1 else ''}."
