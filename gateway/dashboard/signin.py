"""Sign in, sign out, and the organization switcher."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from aiohttp import ChainMapProxy, web
from aiohttp_session import get_session

from gateway import queries
from gateway.audit import AUDIT_ACTION, AUDIT_ACTOR, AUDIT_ORGANIZATIONS, Actor, audit_record
from gateway.dashboard.render import flash, render, try_again_in
from gateway.dashboard.session import (
    ORGANIZATION_ID,
    USER_ID,
    local_path,
    require_user,
    sign_in,
    sign_out,
    switch_organization,
)
from gateway.dashboard.slow_down import SlowDown
from gateway.dashboard.throttle import SignInThrottle
from gateway.identity import invitations
from gateway.identity.auth.attempts import Attempts
from gateway.identity.auth.passwords import upgraded_hash, verify_password
from gateway.settings import GatewaySettings
from gateway.state import CLOCK
from libs.common.audit import BURST_ACTION, publish
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


async def _record_burst(request: web.Request, email: str) -> None:
    """The audit record of a burst of failed sign-ins to an account, for the organization its
    sign-in opens."""
    async with cursor(request.config_dict[DB_POOL]) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
    opening = await _opening(request, user["id"]) if user is not None else None
    if user is None or opening is None:
        return
    actor = Actor("password", str(user["id"]), email, str(opening["id"]))
    record = audit_record(request, actor, 401, web.Response(status=401))
    record.action = BURST_ACTION
    await publish(request.config_dict[REDIS], request.config_dict[SETTINGS].redis_prefix, record)


async def home(request: web.Request) -> web.Response:
    """GET /: the current organization's landing page when signed in, else the sign-in page."""
    signed_in = await require_user(request)
    current = signed_in.current
    raise web.HTTPSeeOther(landing_page(current.slug) if current else "/orgs")


async def _opening(request: web.Request, user_id: Any) -> dict[str, Any] | None:
    """The organization a sign-in opens: the one last used, while still a member; else the
    first by name; None without any."""
    async with cursor(request.config_dict[DB_POOL]) as cur:
        memberships = await queries.list_memberships(cur, user_id)
        last_used = await queries.last_organization(cur, user_id)
    return next((row for row in memberships if str(row["id"]) == last_used), memberships[0] if memberships else None)


async def login_page(request: web.Request) -> web.Response:
    """GET /login."""
    session = await get_session(request)
    target = local_path(request.query.get("next"))
    if isinstance(session.get(USER_ID), str):
        raise web.HTTPSeeOther(target)
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
    slow = SlowDown.of(request.config_dict)
    turn = await slow.turn(email, address) if email and not wait else 0.0  # an account under attack: in turn
    if turn < 0:
        await throttle.withdrawn(email, address)  # not checked: it counts against no limit
        wait = math.ceil(-turn)
        if await slow.failed(email):  # but the owner hears of it
            await _record_burst(request, email)
    if wait:
        response = await again(f"Too many failed sign-ins. {try_again_in(wait)}", 429)
        response.headers["Retry-After"] = str(wait)
        return response
    await asyncio.sleep(turn)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        user = await queries.find_user_for_sign_in(cur, email) if email else None
    stored = user["password_hash"] if user is not None else None
    matches = await verify_password(stored, password)  # run for unknown emails too: same time
    request[AUDIT_ACTION] = "session.sign_in"
    if user is None or not matches:
        # Recorded in the organization the sign-in would have opened, and in no other: a person's
        # other organizations learn nothing of where they sign in from.
        opening = await _opening(request, user["id"]) if user is not None else None
        request[AUDIT_ACTOR] = Actor("password", str(user["id"]) if user else None, email or None, None)
        request[AUDIT_ORGANIZATIONS] = [str(opening["id"])] if opening else []
        if user is not None and await slow.failed(email):
            await _record_burst(request, email)
        return await again(WRONG_CREDENTIALS, 401)
    await throttle.succeeded(email, address)
    await slow.signed_in(email, address)
    upgraded = await upgraded_hash(user["password_hash"], password)
    if upgraded is not None:
        async with cursor(request.config_dict[DB_POOL]) as cur:
            await queries.set_password_hash(cur, user["id"], upgraded)
    first = await _opening(request, user["id"])
    await sign_in(request, str(user["id"]), str(first["id"]) if first else None)
    request[AUDIT_ACTOR] = Actor("password", str(user["id"]), email, None)
    request[AUDIT_ORGANIZATIONS] = [str(first["id"])] if first else []
    if (failures := await slow.notice(email)) is not None and first is not None:
        await flash(
            request,
            f"There were {int(failures['count'])} failed sign-ins to your account lately: "
            "see Security for when, and change your password if they were not yours.",
        )
    default = landing_page(first["slug"]) if first else "/orgs"
    raise web.HTTPSeeOther(target if target != "/" else default)


async def logout(request: web.Request) -> web.Response:
    """POST /logout: the session is deleted, not just forgotten by the browser; the trail of the
    organization it acted in records the sign-out."""
    session = await get_session(request)
    user_id, organization_id = session.get(USER_ID), session.get(ORGANIZATION_ID)
    if isinstance(user_id, str) and isinstance(organization_id, str):
        request[AUDIT_ACTOR] = Actor("session", user_id, None, organization_id)
        request[AUDIT_ACTION] = "session.sign_out"
    response = web.HTTPSeeOther("/login?signed-out")
    await sign_out(request, response)
    raise response


async def organizations(request: web.Request) -> web.Response:
    """GET /orgs: the organizations the user belongs to."""
    signed_in = await require_user(request)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        pending = await invitations.pending_for_email(cur, signed_in.email, request.config_dict[CLOCK]())
    return await render(request, "orgs.html", {"memberships": signed_in.memberships, "invitations": pending})


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
