"""The gateway's part of the audit trail (libs/common/audit.py): every request that changes
something (API, dashboard, CLI), every refused credential and every failed sign-in is recorded
with who, what, when, from where, the request id and the result.

`audit_middleware` sits outside the error middleware, so it sees the final status of every
answer. Who acted is what the route's checks established (`AUDIT_ACTOR`, set by
gateway/edge/proxy.py), else the dashboard's signed-in user, else nobody known.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from aiohttp import web
from aiohttp.typedefs import Handler

from gateway.audit_names import audit_name
from gateway.edge.route_table import ROUTES
from gateway.identity import Identity
from gateway.identity.auth.api_keys import KEY_SHAPE, key_prefix
from libs.common.audit import AuditRecord, publish
from libs.common.client_address import client_address
from libs.common.db import cursor, fetch_value
from libs.common.encoding import loads
from libs.common.state import DB_POOL, REDIS, REQUEST_ID, SETTINGS
from libs.contract.internal import OAUTH

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
USER_CREDENTIALS = frozenset({"bearer", "session"})  # the actor is a user, named by email
# A device-flow client polls the token endpoint every few seconds while its user has not yet
# approved: those answers are not events; an issued token is.
QUIET_FAILURES = {OAUTH.token.path}
# Answers whose created resource's id is read from the body: never more than this many bytes.
BODY_READ_LIMIT = 64 * 1024
# The API's routes by name: what a change is called is read from its declaration.
ROUTES_BY_NAME = {route.name: route for route in ROUTES}


@dataclass(frozen=True)
class Actor:
    kind: str
    id: str | None
    label: str | None
    organization_id: str | None
    grant_id: str | None = None

    @classmethod
    def of(cls, identity: Identity) -> Actor:
        return cls(
            identity.credential, identity.principal_id, identity.key_prefix, identity.organization.id, identity.grant_id
        )


# Who acted: set by the checks of a route, by a dashboard page for its signed-in person
# (gateway/dashboard/session.py), or by a handler that knows better (a sign-in).
AUDIT_ACTOR: web.RequestKey[Actor] = web.RequestKey("audit_actor", Actor)
# Set by a handler that names the action itself (a sign-in), instead of the route's name.
AUDIT_ACTION: web.RequestKey[str] = web.RequestKey("audit_action", str)
# Set by a handler whose event concerns several organizations (a user's failed sign-in: each of
# the user's organizations sees it); one record is published for each.
AUDIT_ORGANIZATIONS: web.RequestKey[list[str]] = web.RequestKey("audit_organizations", list)


def _resource(request: web.Request, response: web.StreamResponse) -> tuple[str | None, str | None]:
    """The resource a request acted on: for a create, the path's last segment and the id the
    answer gives; else the path's last parameter (`/personas/{personaId}` → persona, its id)."""
    last_segment = request.path.rstrip("/").rpartition("/")[2] or None
    created = _created_id(response)
    if created is not None:
        return last_segment, created
    if request.match_info:
        name, value = list(request.match_info.items())[-1]
        return name.removesuffix("Id"), value
    return last_segment, None


def _created_id(response: web.StreamResponse) -> str | None:
    if not isinstance(response, web.Response) or response.status != 201:
        return None
    body = response.body
    if not isinstance(body, bytes) or len(body) > BODY_READ_LIMIT:
        return None
    try:
        data = loads(body).get("data")
    except (ValueError, AttributeError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _is_recorded(request: web.Request, status: int) -> bool:
    if request.path.startswith("/internal/"):
        return False
    if status == 401 and request.path.startswith("/api/"):
        return True  # a refused credential, even on a read
    route = ROUTES_BY_NAME.get(request.match_info.route.name or "")
    if request.method in SAFE_METHODS or (route is not None and route.read_only):
        return False  # a read (a search or an import preview sent as POST) changes nothing
    return not (request.path in QUIET_FAILURES and status >= 400)


async def _key_organization(request: web.Request) -> str | None:
    """The organization of a refused API key that exists (revoked, expired): its owner sees the attempt."""
    key = request.headers.get("x-api-key")
    if key is None:
        return None
    prefix = key_prefix(key)
    async with cursor(request.config_dict[DB_POOL]) as cur:
        organization = await fetch_value(cur, "SELECT organization_id FROM api_keys WHERE prefix = %s", (prefix,))
    return str(organization) if organization is not None else None


async def user_label(request: web.Request, user_id: str, grant_id: str | None) -> str | None:
    """A user as the trail shows them: their email, and the device a token came from
    (`ada@example.com via aivis on laptop (profile default)`)."""
    async with cursor(request.config_dict[DB_POOL]) as cur:
        await cur.execute(
            "SELECT u.email, g.device_name FROM users u LEFT JOIN oauth_grants g ON g.id = %s WHERE u.id = %s",
            (grant_id, user_id),
        )
        row = await cur.fetchone()
    if row is None:
        return None
    return f"{row['email']} via {row['device_name']}" if row["device_name"] else str(row["email"])


async def _actor(request: web.Request, status: int) -> Actor:
    if AUDIT_ACTOR in request:
        actor = request[AUDIT_ACTOR]
        if actor.label is None and actor.id is not None and actor.kind in USER_CREDENTIALS:
            return replace(actor, label=await user_label(request, actor.id, actor.grant_id))
        return actor
    if status == 401 and KEY_SHAPE.fullmatch(request.headers.get("x-api-key", "")):
        # Only the public prefix of a key the gateway could have issued: never part of a mistyped secret.
        return Actor("api_key", None, key_prefix(request.headers["x-api-key"]), await _key_organization(request))
    return Actor("anonymous", None, None, None)


def audit_record(request: web.Request, actor: Actor, status: int, response: web.StreamResponse) -> AuditRecord:
    route_name = request.match_info.route.name
    route = ROUTES_BY_NAME.get(route_name or "")
    if route is not None:
        named = audit_name(route, request.match_info, _created_id(response))
        action, resource_type, resource_id = named.action, named.resource_type, named.resource_id
    else:
        resource_type, resource_id = _resource(request, response)
        action = route_name or f"{request.method} {request.path}"
    action = request.get(AUDIT_ACTION) or action
    if status == 401 and (request.method in SAFE_METHODS or (route is not None and route.read_only)):
        action = "credential.refused"
    return AuditRecord(
        organization_id=actor.organization_id,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label,
        action=action,
        result="success" if status < 400 else "failure",
        resource_type=resource_type,
        resource_id=resource_id,
        method=request.method,
        path=request.path,
        client_address=client_address(request),
        request_id=request.get(REQUEST_ID),
        status=status,
    )


@web.middleware
async def audit_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    if _is_recorded(request, response.status):
        actor = await _actor(request, response.status)
        organizations = request.get(AUDIT_ORGANIZATIONS) or [actor.organization_id]
        for organization_id in organizations:
            record = audit_record(request, replace(actor, organization_id=organization_id), response.status, response)
            await publish(request.config_dict[REDIS], request.config_dict[SETTINGS].redis_prefix, record)
    return response
