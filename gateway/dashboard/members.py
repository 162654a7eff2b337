"""/{orgSlug}/settings/members: who belongs to the organization, with which role.

Everyone sees the members; owners and admins invite people by email (an invitation the person
accepts: gateway/identity/invitations.py), change roles and remove them; any member may leave. Only an
owner gives or takes the owner role, and an organization always keeps one owner. A
removed member's access ends as the API's does: the membership's change is recorded
(identity_changes) and every replica drops what it cached within a second, so the next call
with their session, token or device is refused, and their dashboard pages answer 404 at once.
"""

from __future__ import annotations

from aiohttp import web

from gateway import queries
from gateway.dashboard.organization import ORG, member
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership, SignedIn
from gateway.identity import invitations
from gateway.identity.oauth.views import public_url
from gateway.state import CLOCK
from libs.common.db import cursor, transaction
from libs.common.errors import Conflict, Forbidden, NotFound
from libs.common.state import DB_POOL

ROLES = ("owner", "admin", "member", "viewer")
ROLE_HINTS = {
    "owner": "everything, including owners",
    "admin": "everything but owners",
    "member": "reads; writes content, prompts and products",
    "viewer": "reads only",
}
MAX_EMAIL_LENGTH = 320


def members_path(membership: Membership) -> str:
    return f"/{membership.slug}/settings/members"


async def _manager(request: web.Request) -> tuple[SignedIn, Membership]:
    signed_in, membership = await member(request)
    if not membership.manages_keys:
        raise Forbidden(f"Only owners and admins of {membership.name} add, change or remove members.")
    return signed_in, membership


def _may_assign(actor: Membership, role: str) -> bool:
    return role in ROLES and (actor.role == "owner" or role != "owner")


async def _page(
    request: web.Request, membership: Membership, error: str | None = None, email: str = "", status: int = 200
) -> web.Response:
    async with cursor(request.config_dict[DB_POOL]) as cur:
        members = await queries.list_users(cur, membership.organization_id)
        pending = (
            await invitations.pending_of_organization(cur, membership.organization_id, request.config_dict[CLOCK]())
            if membership.manages_keys
            else []
        )
    assignable = [role for role in ROLES if _may_assign(membership, role)]
    context = {
        "membership": membership,
        "members": members,
        "roles": assignable,
        "role_hints": ROLE_HINTS,
        "error": error,
        "email": email,
        "invitations": pending,
    }
    return await render(request, "members.html", context, status=status)


async def member_list(request: web.Request) -> web.Response:
    """GET: the members, by email."""
    _, membership = await member(request)
    return await _page(request, membership)


async def add(request: web.Request) -> web.Response:
    """POST: invite a person by email with a role; the page then shows the invitation's link, once,
    to hand over. Nobody is a member before they accept. A member already is a 409."""
    signed_in, membership = await _manager(request)
    form = await request.post()
    email = str(form.get("email", "")).strip().lower()[:MAX_EMAIL_LENGTH]
    role = str(form.get("role", ""))
    if "@" not in email[1:] or " " in email:
        return await _page(request, membership, "Enter an email address, such as ada@example.com.", email, 422)
    if not _may_assign(membership, role):
        return await _page(request, membership, "Choose one of the roles listed.", email, 422)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        user = await queries.find_user_for_sign_in(cur, email)
        if user is not None and await queries.find_membership_role(cur, user["id"], membership.organization_id):
            return await _page(
                request, membership, f"{email} is a member already; change their role below.", email, 409
            )
        token = await invitations.invite(
            cur, membership.organization_id, email, role, signed_in.user_id, request.config_dict[CLOCK]()
        )
    link = f"{public_url(request)}/invitations/{token}"
    await flash(
        request,
        f"{email} is invited as {role}. They join once they accept; send them this link, shown "
        f"only now (valid {invitations.INVITATION_DAYS} days): {link}",
    )
    raise web.HTTPSeeOther(members_path(membership))


async def withdraw(request: web.Request) -> web.Response:
    """POST /invitations/{invitation}/withdraw: the link stops working."""
    _, membership = await _manager(request)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        withdrawn = await invitations.withdraw(
            cur, membership.organization_id, request.match_info["invitation"], request.config_dict[CLOCK]()
        )
    if not withdrawn:
        raise NotFound("There is no such pending invitation.")
    await flash(request, "The invitation is withdrawn; its link no longer works.")
    raise web.HTTPSeeOther(members_path(membership))


async def leave(request: web.Request) -> web.Response:
    """POST /leave: the signed-in person leaves the organization, unless they are its last owner."""
    signed_in, membership = await member(request)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        await queries.lock_memberships(cur, membership.organization_id)
        role = await queries.find_membership_role(cur, signed_in.user_id, membership.organization_id)
        if role == "owner" and await queries.count_owners(cur, membership.organization_id) < 2:
            raise Conflict("An organization keeps at least one owner: make someone else an owner first.")
        await queries.remove_membership(cur, signed_in.user_id, membership.organization_id)
    await flash(request, f"You left {membership.name}.")
    raise web.HTTPSeeOther("/orgs")


async def _target(cur: object, request: web.Request, membership: Membership) -> tuple[str, str, str]:
    """The member the path names: (user id, email, role); 404 for anyone else. Takes the lock of
    the organization's memberships first, so the role read is still true when the change is written."""
    await queries.lock_memberships(cur, membership.organization_id)
    members = await queries.list_users(cur, membership.organization_id)
    found = next((row for row in members if str(row["id"]) == request.match_info["user"]), None)
    if found is None:
        raise NotFound("There is no such member in this organization.")
    return str(found["id"]), found["email"], found["role"]


async def change_role(request: web.Request) -> web.Response:
    """POST /{userId}/role: a new role; only owners touch the owner role, and one owner stays."""
    _, membership = await _manager(request)
    role = str((await request.post()).get("role", ""))
    async with transaction(request.config_dict[DB_POOL]) as cur:
        user_id, email, current = await _target(cur, request, membership)
        if not _may_assign(membership, role) or not _may_assign(membership, current):
            raise Forbidden("Only owners give or take the owner role.")
        if current == "owner" and role != "owner" and await queries.count_owners(cur, membership.organization_id) < 2:
            raise Conflict("An organization keeps at least one owner: make someone else an owner first.")
        await queries.upsert_membership(cur, user_id, membership.organization_id, role)
    await flash(request, f"{email} is now {'an' if role[0] in 'aeiou' else 'a'} {role}.")
    raise web.HTTPSeeOther(members_path(membership))


async def remove(request: web.Request) -> web.Response:
    """POST /{userId}/remove: the membership ends; their access with it, within a second."""
    signed_in, membership = await _manager(request)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        user_id, email, current = await _target(cur, request, membership)
        if not _may_assign(membership, current):
            raise Forbidden("Only owners remove an owner.")
        if current == "owner" and await queries.count_owners(cur, membership.organization_id) < 2:
            raise Conflict("An organization keeps at least one owner: make someone else an owner first.")
        await queries.remove_membership(cur, user_id, membership.organization_id)
    if user_id == signed_in.user_id:
        await flash(request, f"You left {membership.name}.")
        raise web.HTTPSeeOther("/orgs")
    await flash(request, f"{email} was removed from {membership.name}; their access has ended.")
    raise web.HTTPSeeOther(members_path(membership))


def add_routes(router: web.UrlDispatcher) -> None:
    base = f"/{ORG}/settings/members"
    router.add_get(base, member_list, name="dashboard.members")
    router.add_post(base, add, name="dashboard.member_add")
    router.add_post(base + "/{user}/role", change_role, name="dashboard.member_role")
    router.add_post(base + "/{user}/remove", remove, name="dashboard.member_remove")
    router.add_post(base + "/invitations/{invitation}/withdraw", withdraw, name="dashboard.invitation_withdraw")
    router.add_post(base + "/leave", leave, name="dashboard.member_leave")
