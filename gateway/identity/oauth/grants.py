"""Grants and their tokens: an access token (the gateway's EdDSA JWT) and a family of opaque,
single-use refresh tokens.

Each refresh spends its token and issues the next one of the family. Presenting a spent token
means two parties hold the family, so the whole grant is revoked (RFC 9700 §4.14.2). The
membership is read from the database, not the gateway's cache, on every refresh: a user removed
from the organization cannot refresh from that moment, and the grant is revoked.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from gateway.identity.auth.api_keys import hash_key
from gateway.identity.auth.scopes import ALL_SCOPES, READ_SCOPES
from gateway.identity.auth.tokens import DEFAULT_TTL_SECONDS, TokenSigner
from gateway.identity.oauth import queries
from gateway.identity.oauth.protocol import OAuthError, invalid_grant
from libs.common.db import Row
from libs.common.errors import Unauthorized

REFRESH_TOKEN_MARK = "avr_"
REFRESH_TOKEN_TTL = timedelta(days=30)

# What an approval may grant, by the approving user's role: owners and admins any scope;
# members and viewers the read scopes only, so a token on a device never writes for them.
GRANTABLE_SCOPES: dict[str, frozenset[str]] = {
    "owner": ALL_SCOPES,
    "admin": ALL_SCOPES,
    "member": READ_SCOPES,
    "viewer": READ_SCOPES,
}


@dataclass(frozen=True)
class Tokens:
    access_token: str
    refresh_token: str
    scopes: frozenset[str]
    user: dict[str, Any]
    organization: dict[str, Any]

    def body(self) -> dict[str, Any]:
        """The token response (RFC 6749 §5.1), with whom and where the tokens act for."""
        return {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": DEFAULT_TTL_SECONDS,
            "refresh_token": self.refresh_token,
            "scope": " ".join(sorted(self.scopes)),
            "user": self.user,
            "organization": self.organization,
        }


def new_refresh_token() -> str:
    return REFRESH_TOKEN_MARK + secrets.token_urlsafe(32)


async def issue(
    cur: Any, signer: TokenSigner, grant_id: str, member: Row, scopes: frozenset[str], now: datetime
) -> Tokens:
    """A fresh access token and the next refresh token of the grant, for a member (queries.find_member)."""
    refresh_token = new_refresh_token()
    await queries.insert_refresh_token(cur, grant_id, hash_key(refresh_token), now, now + REFRESH_TOKEN_TTL)
    user_id, organization_id = str(member["user_id"]), str(member["organization_id"])
    return Tokens(
        access_token=signer.mint(user_id, organization_id, scopes, grant_id=grant_id),
        refresh_token=refresh_token,
        scopes=scopes,
        user={"id": user_id, "email": member["email"], "name": member["user_name"]},
        organization={"id": organization_id, "slug": member["slug"], "name": member["name"]},
    )


async def start(
    cur: Any,
    signer: TokenSigner,
    client_id: str,
    member: Row,
    scopes: frozenset[str],
    now: datetime,
    device_name: str | None = None,
) -> Tokens:
    """A new grant (a new family) and its first tokens; `device_name` is how the device called itself."""
    grant_id = await queries.insert_grant(
        cur, client_id, str(member["user_id"]), str(member["organization_id"]), sorted(scopes), now, device_name
    )
    return await issue(cur, signer, grant_id, member, scopes, now)


async def refresh(
    cur: Any, signer: TokenSigner, client_id: str, refresh_token: str, requested: frozenset[str] | None, now: datetime
) -> Tokens | OAuthError:
    """Spend a refresh token. A refusal that revokes the grant is returned, not raised, so the
    caller commits the revocation before answering."""
    row = await queries.lock_refresh_token(cur, hash_key(refresh_token))
    if row is None or row["client_id"] != client_id:
        return invalid_grant("unknown refresh token")
    if row["revoked_at"] is not None:
        return invalid_grant("the refresh token's grant has been revoked; sign in again")
    grant_id = str(row["grant_id"])
    if row["used_at"] is not None:
        await queries.revoke_grant(cur, grant_id, "reused", now)
        return invalid_grant("the refresh token was already used; its grant is revoked, sign in again")
    if row["expires_at"] <= now:
        return invalid_grant("the refresh token has expired; sign in again")
    member = await queries.find_member(cur, str(row["user_id"]), str(row["organization_id"]))
    if member is None:
        await queries.revoke_grant(cur, grant_id, "membership", now)
        return invalid_grant("the user is no longer a member of the organization")
    allowed = frozenset(row["scopes"]) & GRANTABLE_SCOPES[member["role"]]
    if requested is not None and not requested <= allowed:
        return OAuthError("invalid_scope", "the requested scope exceeds the grant")
    await queries.mark_refresh_token_used(cur, str(row["id"]), now)
    if requested is not None and requested != frozenset(row["scopes"]):
        # A family's scope only narrows: what a refresh gives up, later refreshes cannot ask back.
        await queries.narrow_grant(cur, grant_id, sorted(requested))
    scopes = allowed if requested is None else requested
    return await issue(cur, signer, grant_id, member, scopes, now)


async def revoke(cur: Any, signer: TokenSigner, client_id: str, token: str, now: datetime) -> Row | bool | None:
    """Revoke the grant of a refresh token or access token issued to the client: the whole family,
    access tokens included (they carry the grant's id). The grant this ended (its user,
    organization and device name); True when it had ended already; False when the token is none
    of ours (or not the client's); None for a valid access token issued outside any grant (an
    operator's)."""
    if token.startswith(REFRESH_TOKEN_MARK):
        row = await queries.lock_refresh_token(cur, hash_key(token))
        grant = None if row is None else {"id": row["grant_id"], "client_id": row["client_id"]}
    else:
        try:
            claims = signer.verify(token)
        except Unauthorized:
            return False
        if "gid" not in claims:
            return None
        grant = await queries.find_grant(cur, claims["gid"])
    if grant is None or grant["client_id"] != client_id:
        return False
    return await queries.revoke_grant(cur, str(grant["id"]), "revoked", now) or True
