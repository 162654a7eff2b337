"""/{orgSlug}/settings/security: the signed-in person's own sessions and authorised devices
(`aivis login` approvals), each revocable. These are the person's, across organizations; the
page sits under the organization so it shares its navigation (the audit trail joins it later).

Revoking a session deletes its record: its cookie opens nothing from the next request on.
Revoking a device revokes its OAuth grant: its refresh token stops working at once and its
access tokens within a second on every replica (the grant's change travels on identity_changes).
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any

from aiohttp import web
from aiohttp_session import get_session

from gateway import queries
from gateway.dashboard import session_list
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership
from gateway.dashboard.slow_down import SlowDown
from gateway.identity.oauth import queries as oauth_queries
from gateway.identity.oauth.clients import CLIENTS
from gateway.state import CLOCK
from libs.common.db import cursor, transaction
from libs.common.errors import NotFound
from libs.common.state import DB_POOL
from libs.contract.validators import is_uuid


def security_path(membership: Membership) -> str:
    return f"/{membership.slug}/settings/security"


async def overview(request: web.Request) -> web.Response:
    """GET: the sessions (this one marked) and the devices."""
    signed_in, membership = await member(request)
    sessions = await session_list.listed(request, signed_in.user_id, await get_session(request))
    async with cursor(request.config_dict[DB_POOL]) as cur:
        devices = await queries.list_user_grants(cur, signed_in.user_id)
    clients = {client_id: client.name for client_id, client in CLIENTS.items()}
    failures = await SlowDown.of(request.config_dict).notice(signed_in.email)
    context = {
        "membership": membership,
        "sessions": sessions,
        "devices": devices,
        "clients": clients,
        "failures": _failures_shown(failures),
    }
    return await render(request, "security.html", context)


def _failures_shown(failures: dict[str, float] | None) -> dict[str, Any] | None:
    if failures is None:
        return None
    moment = partial(datetime.fromtimestamp, tz=UTC)
    return {"count": int(failures["count"]), "first": moment(failures["first"]), "last": moment(failures["last"])}


async def dismiss_failures(request: web.Request) -> web.Response:
    """POST /failed-sign-ins/dismiss: the person has seen the notice of failed sign-ins."""
    signed_in, membership = await member(request)
    await SlowDown.of(request.config_dict).dismiss(signed_in.email)
    raise web.HTTPSeeOther(security_path(membership))


async def revoke_session(request: web.Request) -> web.Response:
    """POST /sessions/{id}/revoke: sign that browser out (this one too, when it is this one)."""
    signed_in, membership = await member(request)
    target = request.match_info["session"]
    current = await get_session(request)
    is_current = current.identity is not None and session_list.public_id(str(current.identity)) == target
    if not await session_list.revoke(request, signed_in.user_id, target):
        raise NotFound("There is no such session of yours, or it has ended already.")
    if is_current:
        current.invalidate()
        raise web.HTTPSeeOther("/login?signed-out")
    await flash(request, "The session is signed out.")
    raise web.HTTPSeeOther(security_path(membership))


async def revoke_device(request: web.Request) -> web.Response:
    """POST /devices/{id}/revoke: the device's grant ends, its tokens with it."""
    signed_in, membership = await member(request)
    grant_id = request.match_info["device"]
    async with transaction(request.config_dict[DB_POOL]) as cur:
        grants = await queries.list_user_grants(cur, signed_in.user_id) if is_uuid(grant_id) else []
        if not any(str(grant["id"]) == grant_id for grant in grants):
            raise NotFound("There is no such device of yours, or it was revoked already.")
        await oauth_queries.revoke_grant(cur, grant_id, "revoked", request.config_dict[CLOCK]())
    await flash(request, "The device is signed out: its tokens are refused from now on.")
    raise web.HTTPSeeOther(security_path(membership))


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/settings/security"
    router.add_get(base, overview, name="dashboard.security")
    router.add_post(base + "/sessions/{session}/revoke", revoke_session, name="dashboard.session_revoke")
    router.add_post(base + "/devices/{device}/revoke", revoke_device, name="dashboard.device_revoke")
    router.add_post(base + "/failed-sign-ins/dismiss", dismiss_failures, name="dashboard.failures_dismiss")
