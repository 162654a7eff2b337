"""The gateway's identity: who is calling, once a credential has been verified (`Identity`).

Beside it: `auth/` (API keys, passwords, bearer tokens, sessions, the credential checks),
`oauth/` (the device grant and refresh tokens), `directory.py` (organizations, products and
memberships as the checks read them) and `invitations.py`."""

from __future__ import annotations

from dataclasses import dataclass

from libs.common.internal_token import Caller, Organization, Product


@dataclass(frozen=True)
class Identity:
    """A verified caller: an API key, or a user (by bearer token or session), in one organization."""

    kind: str  # "api_key" or "user"
    principal_id: str
    organization: Organization
    scopes: frozenset[str]
    # What rate limits count against: the key, or the user within the organization.
    rate_key: str
    # How the caller proved it: "api_key", "bearer" or "session"; and a key's public prefix.
    credential: str = "api_key"
    key_prefix: str | None = None
    # The OAuth grant a bearer token was issued under: the device the user acts from.
    grant_id: str | None = None

    def access_fields(self) -> dict[str, str]:
        """What the access log records of the caller (never a secret)."""
        fields = {"organization_id": self.organization.id, "credential": self.credential}
        if self.key_prefix is not None:
            fields["key_prefix"] = self.key_prefix
        return fields

    def caller(self, request_id: str, product: Product | None = None) -> Caller:
        return Caller(
            principal_kind=self.kind,
            principal_id=self.principal_id,
            organization=self.organization,
            scopes=self.scopes,
            product=product,
            request_id=request_id,
        )
