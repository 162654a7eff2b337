"""Sign in, sign out, and the organization switcher."""

from __future__ import annotations

from aiohttp import ChainMapProxy, web
from aiohttp_session import get_session

from gateway import queries
from gateway.audit import AUDIT_ACTION, AUDIT_ACTOR, AUDIT_ORGANIZATIONS, Actor
from gateway.auth.attempts import Attempts
from gateway.auth.passwords import upgraded_hash, verify_password
from gateway.dashboard.render import render, try_again_in
from gateway.dashboard.session import (
    ANONYMOUS_MAX_AGE,
    USER_ID,
    local_path,
    require_user,
    sign_in,
    sign_out,
    switch_organization,
)
from gateway.dashboard.throttle import SignInThrottle
from gateway.settings import GatewaySettings
from libs.common.client_address import client_address
from libs.common.db import cursor
from libs.common.errors import NotFound
from libs.common.state import DB_POOL, REDIS, SETTINGS

MAX_EMAIL_LENGTH = 320
WRONG_CREDENTIALS = "The email or password is not right."


def landing_page(slug: str) -> str:
    return f"/{slug}"


def _throttle(state: ChainMapProxy) -> SignInThrottle:
    settings: GatewaySettings = state[SETTINGS]
    return SignInThrottle(
        Attempts(state[REDIS], settings.redis_prefix, settings.sign_in_failure_window),
        settings.sign_in_failures_per_account_and_address,
        settings.sign_in_failures_per_address,
        settings.sign_in_failures_per_account,
    )


async def home(request: web.Request) -> web.Response:
    """GET /: the current organization's landing page when signed in, else the sign-in page."""
    signed_in = await require_user(request)
    current = signed_in.current
    raise web.HTTPSeeOther(landing_page(current.slug) if current else "/orgs")


async def login_page(request: web.Request) -> web.Response:
    """GET /login."""
    session = await get_session(request)
    target = local_path(request.query.get("next"))
    if isinstance(session.get(USER_ID), str):
        raise web.HTTPSeeOther(target)
    if session.new:
        session.max_age = ANONYMOUS_MAX_AGE
    notice = "You are signed out." if "signed-out" in request.query else None
    return await render(request, "login.html", {"next": target, "email": "", "error": None, "notice": notice})


async def login(request: web.Request) -> web.Response:
    """POST /login: email and password. Unknown email and wrong password answer alike."""
    form = await request.post()
    email = str(form.get("email", "")).strip().lower()[:MAX_EMAIL_LENGTH]
    password = str(form.get("password", ""))
    target = local_path(form.get("next"))
    throttle = _throttle(request.config_dict)
    address = client_address(request)

    async def again(error: str, status: int) -> web.Response:
        context = {"next": target, "email": email, "error": error, "notice": None}
        return await render(request, "login.html", context, status=status)

    wait = await throttle.reserve(email, address)  # counted now, before the slow hash, so a burst cannot pass
    if wait:
        response = await again(f"Too many failed sign-ins. {try_again_in(wait)}", 429)
        response.headers["Retry-After"] = str(wait)
        return response
    async with cursor(request.config_dict[DB_POOL]) as cur:
        user = await queries.find_user_for_sign_in(cur, email) if email else None
    stored = user["password_hash"] if user is not None else None
    matches = await verify_password(stored, password)  # run for unknown emails too: same time
    request[AUDIT_ACTION] = "session.sign_in"
    if user is None or not matches:
        request[AUDIT_ACTOR] = Actor("password", str(user["id"]) if user else None, email or None, None)
        if user is not None:
            async with cursor(request.config_dict[DB_POOL]) as cur:
                memberships = await queries.list_memberships(cur, user["id"])
            request[AUDIT_ORGANIZATIONS] = [str(row["id"]) for row in memberships]
        return await again(WRONG_CREDENTIALS, 401)
    await throttle.succeeded(email, address)
    upgraded = await upgraded_hash(user["password_hash"], password)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        if upgraded is not None:
            await queries.set_password_hash(cur, user["id"], upgraded)
        memberships = await queries.list_memberships(cur, user["id"])
        last_used = await queries.last_organization(cur, user["id"])
    # The organization last used, while still a member; else the first by name.
    first = next((row for row in memberships if str(row["id"]) == last_used), memberships[0] if memberships else None)
    await sign_in(request, str(user["id"]), str(first["id"]) if first else None)
    request[AUDIT_ACTOR] = Actor("password", str(user["id"]), email, None)
    request[AUDIT_ORGANIZATIONS] = [str(row["id"]) for row in memberships]
    default = landing_page(first["slug"]) if first else "/orgs"
    raise web.HTTPSeeOther(target if target != "/" else default)


async def logout(request: web.Request) -> web.Response:
    """POST /logout: the session is deleted, not just forgotten by the browser."""
    response = web.HTTPSeeOther("/login?signed-out")
    await sign_out(request, response)
    raise response


async def organizations(request: web.Request) -> web.Response:
    """GET /orgs: the organizations the user belongs to."""
    signed_in = await require_user(request)
    return await render(request, "orgs.html", {"memberships": signed_in.memberships})


async def switch(request: web.Request) -> web.Response:
    """POST /orgs: act in another of the user's organizations."""
    signed_in = await require_user(request)
    form = await request.post()
    membership = signed_in.membership(str(form.get("organization", "")))
    if membership is None:
        raise NotFound("You are not a member of that organization.")
    await switch_organization(request, membership.organization_id)
    raise web.HTTPSeeOther(landing_page(membership.slug))


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/", home, name="dashboard.home")
    router.add_get("/login", login_page, name="dashboard.login_page")
    router.add_post("/login", login, name="dashboard.login")
    router.add_post("/logout", logout, name="dashboard.logout")
    router.add_get("/orgs", organizations, name="dashboard.organizations")
    router.add_post("/orgs", switch, name="dashboard.switch")
