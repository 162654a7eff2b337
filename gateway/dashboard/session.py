"""Who is signed in to the dashboard, and in which organization: `require_user`, `require_membership`.

The session (aiohttp-session, stored in Redis under the cookie `app-auth.session_token`) holds
`user_id` and `organization_id`, the same keys the API's cookie credential reads, plus the CSRF
token. Signing in starts a new session under a new id; signing out deletes it from Redis.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from urllib.parse import quote

from aiohttp import web
from aiohttp_session import Session, get_session, new_session

from gateway import queries
from gateway.audit import AUDIT_ACTOR, Actor
from gateway.dashboard import session_list
from gateway.dashboard.csrf import csrf_token
from gateway.identity.auth.scopes import ROLE_SCOPES
from gateway.identity.auth.sessions import OPENED_AT, SESSION_COOKIE, close_session, opened_at
from libs.common.db import cursor
from libs.common.errors import NotFound
from libs.common.state import DB_POOL, REDIS

USER_ID = "user_id"
ORGANIZATION_ID = "organization_id"
# A visitor's CSRF cookie (gateway/dashboard/csrf.py): the sign-in form need not stay open long.
ANONYMOUS_MAX_AGE = 2 * 3600


@dataclass(frozen=True)
class Membership:
    organization_id: str
    slug: str
    name: str
    role: str

    @property
    def manages_keys(self) -> bool:
        return self.role in ("owner", "admin")

    @property
    def scopes(self) -> frozenset[str]:
        """What the role may do through a session (a page shows no link its role cannot open)."""
        return ROLE_SCOPES.get(self.role, frozenset())


@dataclass(frozen=True)
class SignedIn:
    user_id: str
    email: str
    name: str
    # The organization the session acts in (API calls with the cookie, the switcher's choice).
    organization_id: str | None
    memberships: tuple[Membership, ...]

    def membership(self, slug: str) -> Membership | None:
        return next((item for item in self.memberships if item.slug == slug), None)

    @property
    def current(self) -> Membership | None:
        found = next((item for item in self.memberships if item.organization_id == self.organization_id), None)
        return found or (self.memberships[0] if self.memberships else None)


SIGNED_IN: web.RequestKey[SignedIn] = web.RequestKey("dashboard_signed_in", SignedIn)


# A path on this site: not `//host`, no backslash, no whitespace (browsers drop tabs and line
# breaks from URLs, so `/<tab>/host` would become `//host`).
_LOCAL_PATH = re.compile(r"/(?![/\\])[^\s\\]*")


def local_path(target: object, default: str = "/") -> str:
    """`target` when it is a path on this site, else `default`: a sign-in never sends elsewhere."""
    if isinstance(target, str) and _LOCAL_PATH.fullmatch(target):
        return target
    return default


def sign_in_location(request: web.Request) -> str:
    return "/login?next=" + quote(request.path_qs, safe="/")


async def current_user(request: web.Request) -> SignedIn | None:
    """The signed-in user, or None (for pages anyone may see)."""
    if SIGNED_IN in request:
        return request[SIGNED_IN]
    session = await get_session(request)
    user_id = session.get(USER_ID)
    if not isinstance(user_id, str):
        return None
    async with cursor(request.config_dict[DB_POOL]) as cur:
        user = await queries.find_user_by_id(cur, user_id)
        rows = await queries.list_memberships(cur, user_id) if user is not None else []
    revoked = user["credentials_revoked_at"] if user is not None else None
    if user is None or (revoked is not None and opened_at(session) <= revoked.timestamp()):
        return None  # no such user any more, or a password change ended the session
    organization_id = session.get(ORGANIZATION_ID)
    signed_in = SignedIn(
        user_id=str(user["id"]),
        email=user["email"],
        name=user["name"],
        organization_id=organization_id if isinstance(organization_id, str) else None,
        memberships=tuple(Membership(str(row["id"]), row["slug"], row["name"], row["role"]) for row in rows),
    )
    _signed_in_now(request, signed_in)
    await session_list.remember(request, session, signed_in.user_id)
    return signed_in


def _signed_in_now(request: web.Request, signed_in: SignedIn) -> None:
    """The request's signed-in person, and so its actor in the audit trail, unless a handler named
    another (a sign-in names who signed in)."""
    request[SIGNED_IN] = signed_in
    actor = request.get(AUDIT_ACTOR)
    if actor is None or (actor.kind == "session" and actor.id == signed_in.user_id):
        request[AUDIT_ACTOR] = Actor("session", signed_in.user_id, signed_in.email, signed_in.organization_id)


async def require_user(request: web.Request) -> SignedIn:
    """The signed-in user; anyone else is sent to the sign-in page (and back here afterwards)."""
    signed_in = await current_user(request)
    if signed_in is None:
        raise web.HTTPSeeOther(sign_in_location(request))
    return signed_in


async def require_membership(request: web.Request, slug: str) -> tuple[SignedIn, Membership]:
    """The user and their membership of the organization `slug`; not a member (or no such
    organization) is a 404, so a page never tells whether another organization exists. Visiting
    an organization makes it the one the session acts in."""
    signed_in = await require_user(request)
    membership = signed_in.membership(slug)
    if membership is None:
        raise NotFound("There is no such page, or you are not a member of its organization.")
    if signed_in.organization_id != membership.organization_id:
        signed_in = await switch_organization(request, membership.organization_id)
    return signed_in, membership


async def switch_organization(request: web.Request, organization_id: str) -> SignedIn:
    """Make one of the user's organizations the one the session acts in."""
    signed_in = await require_user(request)
    session = await get_session(request)
    session[ORGANIZATION_ID] = organization_id
    signed_in = replace(signed_in, organization_id=organization_id)
    _signed_in_now(request, signed_in)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        await queries.remember_organization(cur, signed_in.user_id, organization_id)
    return signed_in


async def sign_in(request: web.Request, user_id: str, organization_id: str | None) -> Session:
    """Replace whatever session the browser had by a new one, under a new id, for the user."""
    previous = await get_session(request)
    if previous.identity is not None:
        await close_session(request.config_dict[REDIS], str(previous.identity))
    session = await new_session(request)
    session[USER_ID] = user_id
    session[OPENED_AT] = time.time()
    if organization_id is not None:
        session[ORGANIZATION_ID] = organization_id
    csrf_token(request, session)
    return session


async def sign_out(request: web.Request, response: web.StreamResponse) -> None:
    """Delete the session from Redis and the cookie from the browser."""
    session = await get_session(request)
    if session.identity is not None:
        user_id = session.get(USER_ID)
        if isinstance(user_id, str):
            await session_list.forget(request, user_id, session)
        await close_session(request.config_dict[REDIS], str(session.identity))
    response.del_cookie(SESSION_COOKIE, path="/")
