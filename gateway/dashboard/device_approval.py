"""The device page: a signed-in person confirms a code shown by a device (the `aivis` command
line), picks the organization, sees what will be granted, and approves or denies.

What an approval grants is the requested scopes the person's role in the chosen organization
may grant (gateway/identity/oauth/grants.py): owners and admins any, members and viewers the read scopes.
Entering a code is a GET (it changes nothing); deciding is a POST, CSRF-checked like every
dashboard form.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from gateway.dashboard.render import render, try_again_in
from gateway.dashboard.session import Membership, SignedIn, require_user
from gateway.identity.auth.scopes import SCOPE_GRANTS
from gateway.identity.oauth import device
from gateway.identity.oauth.clients import CLIENTS
from gateway.identity.oauth.grants import GRANTABLE_SCOPES
from gateway.identity.oauth.throttle import DeviceFlowLimits
from gateway.state import CLOCK
from libs.common.client_address import client_address
from libs.common.db import cursor, transaction
from libs.common.errors import ValidationFailed
from libs.common.state import DB_POOL
from libs.contract.internal import OAUTH

NOT_PENDING = "This code is not valid: it may be mistyped, already used, or older than 15 minutes."


def _chosen(signed_in: SignedIn, slug: object) -> Membership | None:
    """The organization asked for, else the one the session acts in."""
    if isinstance(slug, str) and slug:
        return signed_in.membership(slug)
    return signed_in.current


async def _confirmation(
    request: web.Request, signed_in: SignedIn, row: dict[str, Any], membership: Membership, status: int = 200
) -> web.Response:
    requested = frozenset(row["requested_scopes"])
    granted = requested & GRANTABLE_SCOPES[membership.role]
    context = {
        "user_code": device.show_user_code(row["user_code"]),
        "client": CLIENTS[row["client_id"]],
        "membership": membership,
        "memberships": signed_in.memberships,
        "granted": [(name, grant) for name, grant in SCOPE_GRANTS.items() if name in granted],
        "withheld": [name for name in SCOPE_GRANTS if name in requested - granted],
        "expires_at": row["expires_at"],
    }
    return await render(request, "device_confirm.html", context, status=status)


async def _entry(request: web.Request, code: str, error: str | None, status: int = 200) -> web.Response:
    return await render(request, "device.html", {"code": code, "error": error}, status=status)


async def _pending(
    request: web.Request, signed_in: SignedIn, cur: Any, code: str | None
) -> dict[str, Any] | int | None:
    """The pending authorization of an entered code, None when there is none, or the seconds to
    wait when this account (or this address, once the account has missed too) has entered too
    many codes that matched nothing."""
    limits = DeviceFlowLimits(request.config_dict)
    address = client_address(request)
    wait = await limits.reserve_entry(signed_in.user_id, address)
    if wait:
        return wait
    row = await device.pending(cur, code, request.config_dict[CLOCK]()) if code is not None else None
    if row is not None:
        await limits.matched(signed_in.user_id, address)
    return row


async def _too_many(request: web.Request, typed: str, wait: int) -> web.Response:
    response = await _entry(request, typed, f"Too many codes tried. {try_again_in(wait)}", status=429)
    response.headers["Retry-After"] = str(wait)
    return response


async def device_page(request: web.Request) -> web.Response:
    """GET /device[?user_code=&organization=]: enter a code, then confirm it."""
    signed_in = await require_user(request)
    typed = request.query.get("user_code", "").strip()[:32]
    if not typed:
        return await _entry(request, "", None)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        row = await _pending(request, signed_in, cur, device.normalize_user_code(typed))
    if isinstance(row, int):
        return await _too_many(request, typed, row)
    if row is None:
        return await _entry(request, typed, NOT_PENDING, status=404)
    membership = _chosen(signed_in, request.query.get("organization"))
    if membership is None:
        return await render(request, "device_done.html", {"approved": False, "no_organization": True}, status=403)
    return await _confirmation(request, signed_in, row, membership)


async def device_decide(request: web.Request) -> web.Response:
    """POST /device: approve (for the organization the drop-down shows) or deny the code; "Choose"
    shows what approving for the drop-down's organization would grant."""
    signed_in = await require_user(request)
    form = await request.post()
    code = device.normalize_user_code(str(form.get("user_code", "")))
    decision = form.get("decision")
    if decision not in ("approve", "deny", "choose"):
        raise ValidationFailed("Choose Approve or Deny.")
    membership = _chosen(signed_in, form.get("organization"))
    if membership is None:
        raise ValidationFailed("You are not a member of that organization.")
    if decision == "choose":
        query = urlencode({"user_code": str(form.get("user_code", "")), "organization": membership.slug})
        raise web.HTTPSeeOther(f"{OAUTH.device_page}?{query}")
    now = request.config_dict[CLOCK]()
    async with transaction(request.config_dict[DB_POOL]) as cur:
        row = await _pending(request, signed_in, cur, code)
        if isinstance(row, int):
            return await _too_many(request, str(form.get("user_code", "")), row)
        if row is None:
            return await _entry(request, str(form.get("user_code", "")), NOT_PENDING, status=404)
        approve = decision == "approve"
        if approve and not frozenset(row["requested_scopes"]) & GRANTABLE_SCOPES[membership.role]:
            return await _confirmation(request, signed_in, row, membership, status=422)
        await device.decide(
            cur, row["user_code"], signed_in.user_id, membership.organization_id, membership.role, approve, now
        )
    context = {"approved": approve, "no_organization": False, "membership": membership}
    return await render(request, "device_done.html", context)


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get(OAUTH.device_page, device_page, name="dashboard.device")
    router.add_post(OAUTH.device_page, device_decide, name="dashboard.device_decide")
