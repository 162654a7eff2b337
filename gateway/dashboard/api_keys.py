"""/{orgSlug}/settings/api-keys: an organization's API keys, and creating, revoking and rotating them.

Everyone in the organization sees the keys; owners and admins change them. A new key's secret
is rendered once, in the answer to the form that made it, and is never stored or shown again.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp_session import get_session

from gateway.dashboard.key_forms import EXPIRY_CHOICES, GRACE_CHOICES, KeyForm, curl_line, read_key_form
from gateway.dashboard.render import flash, render
from gateway.dashboard.session import Membership, SignedIn, require_membership
from gateway.identity.auth import key_changes, key_queries
from gateway.identity.auth.scopes import ALL_SCOPES, SCOPE_GRANTS
from gateway.state import CLOCK
from libs.common.db import Row, cursor, transaction
from libs.common.errors import Forbidden, NotFound
from libs.common.state import DB_POOL

NEW_SECRET = "new_key_secret"


def keys_path(membership: Membership) -> str:
    return f"/{membership.slug}/settings/api-keys"


async def _manager(request: web.Request) -> tuple[SignedIn, Membership]:
    signed_in, membership = await require_membership(request, request.match_info["org"])
    if not membership.manages_keys:
        raise Forbidden(f"Only owners and admins of {membership.name} create, revoke or rotate API keys.")
    return signed_in, membership


def _actor(signed_in: SignedIn) -> key_changes.Actor:
    return key_changes.Actor(signed_in.user_id, signed_in.email)


async def _key(request: web.Request, membership: Membership) -> Row:
    async with cursor(request.config_dict[DB_POOL]) as cur:
        key = await key_queries.find_organization_key(cur, membership.organization_id, request.match_info["key"])
    if key is None:
        raise NotFound("There is no such API key in this organization.")
    return key


def _form_context(form: KeyForm, scopes: frozenset[str]) -> dict[str, Any]:
    return {
        "form": form,
        "scope_choices": [(name, grant) for name, grant in SCOPE_GRANTS.items() if name in scopes],
        "expiry_choices": EXPIRY_CHOICES,
        "grace_choices": GRACE_CHOICES,
    }


async def _list_page(request: web.Request, membership: Membership, form: KeyForm, status: int = 200) -> web.Response:
    async with cursor(request.config_dict[DB_POOL]) as cur:
        keys = await key_queries.list_api_keys(cur, membership.organization_id)
    context = {"membership": membership, "keys": keys, **_form_context(form, ALL_SCOPES)}
    return await render(request, "api_keys.html", context, status=status)


async def _show_once(
    request: web.Request, membership: Membership, secret: str, key: Row, replaced: Row | None = None
) -> web.Response:
    """Post-redirect-get: the secret waits in the session for the one page that shows it, so a
    reload of that page (or of the form's answer) never creates a second key nor shows it again."""
    session = await get_session(request)
    replaced_id = str(replaced["id"]) if replaced is not None else None
    session[NEW_SECRET] = {"key": str(key["id"]), "secret": secret, "replaced": replaced_id}
    raise web.HTTPSeeOther(f"{keys_path(membership)}/{key['id']}/new")


async def created(request: web.Request) -> web.Response:
    """GET /{keyId}/new: the new key's secret, the first time only; afterwards the key's page."""
    _, membership = await _manager(request)
    key = await _key(request, membership)
    waiting = (await get_session(request)).pop(NEW_SECRET, None)
    if not isinstance(waiting, dict) or waiting.get("key") != str(key["id"]):
        await flash(request, "A key's secret is shown once, right after it is created; it cannot be shown again.")
        raise web.HTTPSeeOther(f"{keys_path(membership)}/{key['id']}")
    secret = str(waiting["secret"])
    replaced = None
    if isinstance(waiting.get("replaced"), str):
        async with cursor(request.config_dict[DB_POOL]) as cur:
            replaced = await key_queries.find_organization_key(cur, membership.organization_id, waiting["replaced"])
    curl = curl_line(str(request.url.origin()), secret, frozenset(key["scopes"]))
    context = {"membership": membership, "key": key, "secret": secret, "curl": curl, "replaced": replaced}
    return await render(request, "key_created.html", context)


async def key_list(request: web.Request) -> web.Response:
    """GET: every key of the organization, with its state; owners and admins also get the form."""
    _, membership = await require_membership(request, request.match_info["org"])
    return await _list_page(request, membership, KeyForm())


async def create(request: web.Request) -> web.Response:
    """POST: a new key; the answer shows its secret, once."""
    signed_in, membership = await _manager(request)
    form = read_key_form(await request.post(), ALL_SCOPES)
    if form.errors:
        return await _list_page(request, membership, form, status=422)
    now = request.config_dict[CLOCK]()
    async with transaction(request.config_dict[DB_POOL]) as cur:
        secret, key = await key_changes.create_key(
            cur, membership.organization_id, _actor(signed_in), form.name, form.scopes, form.expires_at(now)
        )
    return await _show_once(request, membership, secret, key)


async def detail(request: web.Request) -> web.Response:
    """GET /{keyId}: one key and its history."""
    _, membership = await require_membership(request, request.match_info["org"])
    key = await _key(request, membership)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        events = await key_queries.list_key_events(cur, key["id"])
    return await render(request, "key_detail.html", {"membership": membership, "key": key, "events": events})


async def revoke_page(request: web.Request) -> web.Response:
    """GET /{keyId}/revoke: the confirmation."""
    _, membership = await _manager(request)
    key = await _key(request, membership)
    return await render(request, "key_revoke.html", {"membership": membership, "key": key})


async def revoke(request: web.Request) -> web.Response:
    """POST /{keyId}/revoke: revoked at once; every gateway refuses it within about a second."""
    signed_in, membership = await _manager(request)
    async with transaction(request.config_dict[DB_POOL]) as cur:
        key = await key_changes.revoke_key(
            cur, membership.organization_id, request.match_info["key"], _actor(signed_in), request.config_dict[CLOCK]()
        )
    await flash(request, f"The key {key['name']} ({key['prefix']}…) is revoked. Requests with it are refused.")
    raise web.HTTPSeeOther(keys_path(membership))


async def rotate_page(request: web.Request) -> web.Response:
    """GET /{keyId}/rotate: a new key pre-filled with the old one's scopes."""
    _, membership = await _manager(request)
    key = await _key(request, membership)
    form = KeyForm(name=key["name"], scopes=frozenset(key["scopes"]))
    context = {"membership": membership, "key": key, **_form_context(form, frozenset(key["scopes"]))}
    return await render(request, "key_rotate.html", context)


async def rotate(request: web.Request) -> web.Response:
    """POST /{keyId}/rotate: the new key, shown once; the old one ends now or after the grace period."""
    signed_in, membership = await _manager(request)
    old = await _key(request, membership)
    allowed = frozenset(old["scopes"])
    form = read_key_form(await request.post(), allowed, with_grace=True)
    if form.errors:
        context = {"membership": membership, "key": old, **_form_context(form, allowed)}
        return await render(request, "key_rotate.html", context, status=422)
    now = request.config_dict[CLOCK]()
    async with transaction(request.config_dict[DB_POOL]) as cur:
        rotation = await key_changes.rotate_key(
            cur,
            membership.organization_id,
            str(old["id"]),
            _actor(signed_in),
            form.name,
            form.scopes,
            form.expires_at(now),
            form.grace_period,
            now,
        )
    return await _show_once(request, membership, rotation.secret, rotation.new, rotation.old)


def add_routes(router: web.UrlDispatcher) -> None:
    base = "/{org}/settings/api-keys"
    router.add_get(base, key_list, name="dashboard.api_keys")
    router.add_post(base, create, name="dashboard.api_keys_create")
    router.add_get(base + "/{key}", detail, name="dashboard.api_key")
    router.add_get(base + "/{key}/new", created, name="dashboard.api_key_created")
    router.add_get(base + "/{key}/revoke", revoke_page, name="dashboard.api_key_revoke_page")
    router.add_post(base + "/{key}/revoke", revoke, name="dashboard.api_key_revoke")
    router.add_get(base + "/{key}/rotate", rotate_page, name="dashboard.api_key_rotate_page")
    router.add_post(base + "/{key}/rotate", rotate, name="dashboard.api_key_rotate")
