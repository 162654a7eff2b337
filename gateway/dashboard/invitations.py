"""Answering an invitation: `/invitations/<token>` (the link an owner or admin handed over), and
accept or decline on `/orgs` for a signed-in person invited by their email (gateway/identity/invitations.py).

A person accepts only for themselves: signed in with the invited email, or, with no account (or
one never given a password) yet, by choosing a name and password on the link's page, which opens
the account, accepts and signs in. Accepting takes the organization's membership lock
(gateway/queries.lock_memberships) like every other membership change.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from gateway import queries
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import current_user, require_user, sign_in
from gateway.dashboard.signin import landing_page
from gateway.identity import invitations
from gateway.identity.auth.passwords import PasswordRefused, check_new_password, hash_password
from gateway.state import CLOCK
from libs.common.db import Row, cursor, transaction
from libs.common.errors import Forbidden, NotFound
from libs.common.state import DB_POOL

NOT_VALID = "This invitation is not valid: it may have been answered, withdrawn, or be older than 7 days."
MAX_NAME_LENGTH = 200


async def _invitation(request: web.Request) -> Row:
    async with cursor(request.config_dict[DB_POOL]) as cur:
        row = await invitations.pending_by_token(cur, request.match_info["token"], request.config_dict[CLOCK]())
    if row is None:
        raise NotFound(NOT_VALID)
    return row


async def _join(cur: Any, request: web.Request, user_id: str, email: str, invitation_id: str) -> Row:
    """Accept the pending invitation for `email`: the membership (unless they are one already) and
    the answer, in the caller's transaction."""
    now = request.config_dict[CLOCK]()
    row = await invitations.lock_pending(cur, invitation_id, email, now)
    if row is None:
        raise NotFound(NOT_VALID)
    await queries.lock_memberships(cur, str(row["organization_id"]))
    if await queries.find_membership_role(cur, user_id, str(row["organization_id"])) is None:
        await queries.upsert_membership(cur, user_id, str(row["organization_id"]), row["role"])
    await invitations.answer(cur, invitation_id, "accepted", now)
    return row


async def invitation_page(request: web.Request) -> web.Response:
    """GET /invitations/{token}: who invites whom to what; accept, decline, or open an account."""
    row = await _invitation(request)
    signed_in = await current_user(request)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        account = await queries.find_user_for_sign_in(cur, row["email"])
    context = {
        "invitation": row,
        "token": request.match_info["token"],
        "for_me": signed_in is not None and signed_in.email == row["email"],
        "needs_account": account is None or account["password_hash"] is None,
        "error": None,
    }
    return await render(
        request, "invitation.html", context, status=200 if signed_in is None or context["for_me"] else 403
    )


async def invitation_account(request: web.Request) -> web.Response:
    """POST /invitations/{token}/account: open the invited email's account (a name and a password),
    accept, and sign in. Only for a visitor, and an email whose account has no password yet."""
    row = await _invitation(request)
    if (signed_in := await current_user(request)) is not None:
        raise Forbidden(f"You are signed in as {signed_in.email}: sign out to open the account {row['email']}.")
    form = await request.post()
    name = str(form.get("name", "")).strip()[:MAX_NAME_LENGTH]
    try:
        check_new_password(password := str(form.get("password", "")))
    except PasswordRefused as refused:
        context = {
            "invitation": row,
            "token": request.match_info["token"],
            "for_me": False,
            "needs_account": True,
            "error": f"Choose another password: {refused}.",
        }
        return await render(request, "invitation.html", context, status=422)
    password_hash = await asyncio.to_thread(hash_password, password)  # argon2: off the event loop
    async with transaction(request.config_dict[DB_POOL]) as cur:
        account = await queries.find_user_for_sign_in(cur, row["email"])
        if account is not None and account["password_hash"] is not None:
            raise web.HTTPSeeOther(f"/login?next=/invitations/{request.match_info['token']}")
        if account is None:
            account = await queries.create_user(cur, row["email"], name)
        await queries.set_name_and_password(cur, account["id"], name, password_hash)
        await _join(cur, request, str(account["id"]), row["email"], str(row["id"]))
    await sign_in(request, str(account["id"]), str(row["organization_id"]))
    await flash(request, f"Welcome to {row['organization_name']}.")
    raise web.HTTPSeeOther(landing_page(row["organization_slug"]))


async def invitation_accept(request: web.Request) -> web.Response:
    """POST /invitations/{id}/accept: the signed-in person joins, as the invitation's role."""
    signed_in = await require_user(request)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        row = await _join(cur, request, signed_in.user_id, signed_in.email, request.match_info["invitation"])
    await flash(request, f"You joined {row['organization_name']} as {row['role']}.")
    raise web.HTTPSeeOther(landing_page(row["organization_slug"]))


async def invitation_decline(request: web.Request) -> web.Response:
    """POST /invitations/{id}/decline: no membership; the invitation is answered."""
    signed_in = await require_user(request)
    now = request.config_dict[CLOCK]()
    async with transaction(request.config_dict[DB_POOL]) as cur:
        row = await invitations.lock_pending(cur, request.match_info["invitation"], signed_in.email, now)
        if row is None:
            raise NotFound(NOT_VALID)
        await invitations.answer(cur, str(row["id"]), "declined", now)
    await flash(request, f"You declined the invitation to {row['organization_name']}.")
    raise web.HTTPSeeOther("/orgs")


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/invitations/{token}", invitation_page, name="dashboard.invitation")
    router.add_post("/invitations/{token}/account", invitation_account, name="dashboard.invitation_account")
    router.add_post("/invitations/{invitation}/accept", invitation_accept, name="dashboard.invitation_accept")
    router.add_post("/invitations/{invitation}/decline", invitation_decline, name="dashboard.invitation_decline")
