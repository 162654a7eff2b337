"""CSRF protection of the dashboard's forms: a per-session token every POST must send back.

The token lives in the session (synchronizer token); a form carries it in the `csrf_token`
field, a script in the `X-CSRF-Token` header. A POST whose Origin names another host is refused
too. `dashboard_middleware` checks every POST the dashboard receives, so a new form cannot forget.

A visitor without a session (the sign-in form) gets the token in a cookie of its own instead
(double submit: the form's field must equal the cookie, which another site can neither read nor
set), so an anonymous page neither writes nor waits on Redis, and a flood of them stores nothing.
"""

from __future__ import annotations

import hmac
import re
import secrets

from aiohttp import web
from aiohttp_session import Session, get_session

from gateway.identity.auth.sessions import from_another_site
from libs.common.errors import Forbidden

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_COOKIE = "app-auth.csrf"
_SESSION_KEY = "csrf"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
# A visitor's token made by this request, for the page's answer to set as its cookie.
NEW_VISITOR_TOKEN: web.RequestKey[str] = web.RequestKey("csrf_new_visitor_token", str)


def csrf_refused() -> Forbidden:
    return Forbidden("This form has expired or did not come from this site. Reload the page and try again.")


def _visitor_token(request: web.Request) -> str | None:
    token = request.cookies.get(CSRF_COOKIE)
    return token if token is not None and _TOKEN.fullmatch(token) else None


def csrf_token(request: web.Request, session: Session) -> str:
    """The session's token, made on first use (a new session after sign-in gets a new one); for a
    visitor without a stored session, the token of their CSRF cookie, made on first use."""
    token = session.get(_SESSION_KEY)
    if isinstance(token, str):
        return token
    if session.identity is None and session.empty:
        token = _visitor_token(request) or request.get(NEW_VISITOR_TOKEN)
        if token is None:
            request[NEW_VISITOR_TOKEN] = token = secrets.token_urlsafe(32)
        return token
    token = secrets.token_urlsafe(32)
    session[_SESSION_KEY] = token
    return token


async def verify_csrf(request: web.Request) -> None:
    """Refuse the request unless it carries its session's token and comes from this site."""
    if from_another_site(request):
        raise csrf_refused()
    session = await get_session(request)
    expected = session.get(_SESSION_KEY)
    if not isinstance(expected, str):
        expected = _visitor_token(request)
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        sent = (await request.post()).get(CSRF_FIELD)  # type: ignore[assignment]
    if not (isinstance(expected, str) and isinstance(sent, str) and hmac.compare_digest(expected, sent)):
        raise csrf_refused()
